CREATE TABLE "request_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone NOT NULL,
	"key_id" text NOT NULL,
	"customer_nrs" text[] NOT NULL,
	"method" text NOT NULL,
	"url" text NOT NULL,
	"status" integer NOT NULL,
	"duration_ms" real NOT NULL,
	"request_id" text NOT NULL,
	"request_content_type" text,
	"request_body" text,
	"response_content_type" text,
	"response_body" text
);
--> statement-breakpoint
CREATE INDEX "request_log_key_id_idx" ON "request_log" USING btree ("key_id","id");--> statement-breakpoint
CREATE INDEX "request_log_at_idx" ON "request_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "request_log_customer_nrs_idx" ON "request_log" USING gin ("customer_nrs");