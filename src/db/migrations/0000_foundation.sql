CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"customer_nrs" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"customer_nr" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"org_nr" text,
	"address" jsonb,
	"agreement" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"price_service_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customers_price_service_id_unique" UNIQUE("price_service_id")
);
--> statement-breakpoint
CREATE TABLE "postal_codes" (
	"postal_code" text PRIMARY KEY NOT NULL,
	"place" text NOT NULL,
	"municipality_code" text NOT NULL,
	"municipality" text NOT NULL,
	"county_code" text NOT NULL,
	"county" text NOT NULL,
	"category" text NOT NULL,
	"lat" double precision,
	"lon" double precision,
	"terminal" text
);
--> statement-breakpoint
CREATE TABLE "reference_data_loads" (
	"name" text PRIMARY KEY NOT NULL,
	"sha256" text NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_keys_created_at_idx" ON "api_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "postal_codes_place_idx" ON "postal_codes" USING btree ("place");