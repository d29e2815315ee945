-- Tariff versions and exchange-rate tables an admin put or deleted before such loads were marked
-- `admin:` (releases before 2026-11-28) are the operator's: a later release that changes the shipped
-- file must not overwrite them or bring a deleted one back. A load is the operator's unless its
-- version is stored as loaded from the file.
UPDATE "reference_data_loads" SET "sha256" = 'admin:' || "sha256"
WHERE "sha256" NOT LIKE 'admin:%'
  AND "name" LIKE 'tariffs/%.json'
  AND NOT EXISTS (
    SELECT 1 FROM "pricing_tariffs" t
    WHERE 'tariffs/' || t."valid_from"::text || '.json' = "reference_data_loads"."name" AND t."source" <> 'admin'
  );--> statement-breakpoint
UPDATE "reference_data_loads" SET "sha256" = 'admin:' || "sha256"
WHERE "sha256" NOT LIKE 'admin:%'
  AND "name" LIKE 'exchange-rates/%.json'
  AND NOT EXISTS (
    SELECT 1 FROM "pricing_exchange_rates" r
    WHERE 'exchange-rates/' || r."valid_from"::text || '.json' = "reference_data_loads"."name" AND r."source" <> 'admin'
  );
