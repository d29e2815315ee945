CREATE TABLE "invoice_numbers" (
	"id" integer PRIMARY KEY NOT NULL,
	"last" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"to_date" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_shipments" (
	"invoice_nr" integer NOT NULL,
	"line_nr" integer NOT NULL,
	"shipment_id" text NOT NULL,
	"is_credit" boolean DEFAULT false NOT NULL,
	"payer_customer_nr" text NOT NULL,
	"payer_role" text NOT NULL,
	"pickup_date" date NOT NULL,
	"pickup_terminal" text,
	"delivery_terminal" text,
	"facts" jsonb NOT NULL,
	"lines" jsonb NOT NULL,
	"total_ore" bigint NOT NULL,
	CONSTRAINT "invoice_shipments_invoice_nr_line_nr_pk" PRIMARY KEY("invoice_nr","line_nr")
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"invoice_nr" integer PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"customer_nr" text NOT NULL,
	"customer_name" text NOT NULL,
	"is_credit" boolean DEFAULT false NOT NULL,
	"credits_invoice_nr" integer,
	"reason" text,
	"kid" text NOT NULL,
	"invoice_date" date NOT NULL,
	"due_date" date NOT NULL,
	"total_ore" bigint NOT NULL,
	"nok_per_eur" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "payer_customer_id" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "invoice_shipments_once_idx" ON "invoice_shipments" USING btree ("shipment_id") WHERE not "invoice_shipments"."is_credit";--> statement-breakpoint
CREATE INDEX "invoice_shipments_report_idx" ON "invoice_shipments" USING btree ("payer_customer_nr","payer_role","pickup_date");--> statement-breakpoint
CREATE INDEX "invoices_customer_idx" ON "invoices" USING btree ("customer_nr","invoice_nr");