ALTER TABLE "parcels" ADD COLUMN "picked_up_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
-- The scans recorded so far: each parcel's first pickup and each shipment's first delivery.
UPDATE "parcels" p SET "picked_up_at" = s."time"
FROM (SELECT "parcel_id", min("time") AS "time" FROM "scan_events" WHERE "event_type" = 'PickedUp' GROUP BY "parcel_id") s
WHERE p."parcel_id" = s."parcel_id";--> statement-breakpoint
UPDATE "shipments" sh SET "delivered_at" = s."time"
FROM (SELECT "shipment_id", min("time") AS "time" FROM "scan_events" WHERE "event_type" = 'Delivered' GROUP BY "shipment_id") s
WHERE sh."id" = s."shipment_id";
