CREATE SEQUENCE "public"."parcel_serial_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."shipment_serial_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"api_key_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" smallint,
	"response_body" jsonb,
	"response_headers" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_api_key_id_key_pk" PRIMARY KEY("api_key_id","key")
);
--> statement-breakpoint
CREATE TABLE "parcels" (
	"shipment_id" text NOT NULL,
	"parcel_id" text NOT NULL,
	"seq" integer NOT NULL,
	"weight_g" integer,
	"length_cm" integer,
	"height_cm" integer,
	"width_cm" integer,
	"volume_cm3" bigint,
	CONSTRAINT "parcels_shipment_id_parcel_id_pk" PRIMARY KEY("shipment_id","parcel_id")
);
--> statement-breakpoint
CREATE TABLE "shipments" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_nr" text NOT NULL,
	"status" smallint NOT NULL,
	"product_code" text NOT NULL,
	"delivery_type" smallint NOT NULL,
	"services" text[] NOT NULL,
	"unit_code" text NOT NULL,
	"comment_to_carrier" text,
	"goods_description" text,
	"sender_reference" text,
	"desired_delivery_date" date,
	"desired_pickup_date" date,
	"recipient_shall_pay" boolean DEFAULT false NOT NULL,
	"recipient_customer_id" integer,
	"pickup_point_id" integer,
	"should_generate_return_shipment" boolean DEFAULT false NOT NULL,
	"is_return" boolean DEFAULT false NOT NULL,
	"return_of" text,
	"return_shipment_id" text,
	"pickup_zip" text,
	"addresses" jsonb NOT NULL,
	"customs" jsonb,
	"pickup_date" date,
	"pickup_window_from" text,
	"pickup_window_to" text,
	"delivery_date" date,
	"delivery_window_from" text,
	"delivery_window_to" text,
	"price" jsonb,
	"picked_up_at" timestamp with time zone,
	"published_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "parcels" ADD CONSTRAINT "parcels_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "parcels_parcel_id_idx" ON "parcels" USING btree ("parcel_id");--> statement-breakpoint
CREATE INDEX "shipments_listing_idx" ON "shipments" USING btree ("customer_nr","pickup_zip","pickup_date","id") WHERE "shipments"."status" = 2 and "shipments"."cancelled_at" is null;--> statement-breakpoint
CREATE INDEX "shipments_customer_created_idx" ON "shipments" USING btree ("customer_nr","created_at");