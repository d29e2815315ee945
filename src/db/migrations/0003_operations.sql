CREATE TABLE "scan_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"parcel_id" text NOT NULL,
	"shipment_id" text NOT NULL,
	"event_type" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"terminal" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "scan_events_shipment_time_idx" ON "scan_events" USING btree ("shipment_id","time");