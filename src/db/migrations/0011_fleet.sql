CREATE TABLE "job_ticks" (
	"job" text NOT NULL,
	"tick" timestamp with time zone NOT NULL,
	"holder" text NOT NULL,
	"ran_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_ticks_job_tick_pk" PRIMARY KEY("job","tick")
);
--> statement-breakpoint
-- Unlogged: counters of one-minute windows need no WAL, no crash safety and no replica copy.
CREATE UNLOGGED TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" timestamp with time zone
);
