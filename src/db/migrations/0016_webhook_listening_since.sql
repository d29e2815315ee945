ALTER TABLE "webhooks" ADD COLUMN "listening_since" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Existing registrations heard the events written after their creation, as before.
UPDATE "webhooks" SET "listening_since" = "created_at";
