CREATE TABLE "catalog_products" (
	"product_code" text PRIMARY KEY NOT NULL,
	"position" integer NOT NULL,
	"definition" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "catalog_services" (
	"service_code" text PRIMARY KEY NOT NULL,
	"position" integer NOT NULL,
	"definition" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pickup_points" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"address" text NOT NULL,
	"postal_code" text NOT NULL,
	"place" text NOT NULL,
	"lat" double precision NOT NULL,
	"lon" double precision NOT NULL,
	"opening_hours" text NOT NULL,
	"sandbox" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "terminal_overrides" (
	"postal_code" text PRIMARY KEY NOT NULL,
	"terminal" text NOT NULL,
	"reason" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "terminals" (
	"code" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"place" text NOT NULL,
	"lat" double precision NOT NULL,
	"lon" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transit_days" (
	"from_terminal" text NOT NULL,
	"to_terminal" text NOT NULL,
	"days" integer NOT NULL,
	"basis" text NOT NULL,
	CONSTRAINT "transit_days_from_terminal_to_terminal_pk" PRIMARY KEY("from_terminal","to_terminal")
);
--> statement-breakpoint
CREATE INDEX "pickup_points_postal_code_idx" ON "pickup_points" USING btree ("postal_code");