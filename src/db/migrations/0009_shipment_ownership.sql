ALTER TABLE "shipments" ALTER COLUMN "recipient_customer_id" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "shipments" ALTER COLUMN "payer_customer_id" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "invoiced_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "shipments_invoiceable_idx" ON "shipments" USING btree ("pickup_date") WHERE "shipments"."status" = 2 and "shipments"."cancelled_at" is null and "shipments"."invoiced_at" is null;--> statement-breakpoint
-- Shipments an invoice already carried keep out of every later run (booking now holds the mark).
UPDATE "shipments" SET "invoiced_at" = now() WHERE "id" IN (SELECT "shipment_id" FROM "invoice_shipments" WHERE NOT "is_credit");
