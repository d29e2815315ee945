CREATE TABLE "pricing_exchange_rates" (
	"valid_from" date PRIMARY KEY NOT NULL,
	"rate_table" jsonb NOT NULL,
	"sha256" text NOT NULL,
	"source" text NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pricing_tariffs" (
	"valid_from" date PRIMARY KEY NOT NULL,
	"document" jsonb NOT NULL,
	"sha256" text NOT NULL,
	"source" text NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
