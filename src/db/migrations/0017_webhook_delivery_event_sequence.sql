ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_outbox_events_id_fk";
--> statement-breakpoint
DROP INDEX "webhook_deliveries_event_idx";