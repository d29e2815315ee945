ALTER TABLE "invoices" ADD COLUMN "customer_org_nr" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "customer_address" jsonb;--> statement-breakpoint
-- Invoices issued before VAT was itemised: their countries from the booking (Norway when unknown),
-- then VAT by the rule of src/invoicing/vat.ts: 25 % when both ends are in Norway, else 0 %; per
-- invoice and rate, the basis times the rate rounded half away from zero (round() on numeric), shared
-- out over the lines: each its exact share rounded down, the øre left over to the largest remainders
-- (ties: the earlier line).
UPDATE "invoice_shipments" i SET "facts" = i."facts" || jsonb_build_object(
  'PickupCountry', coalesce(s."addresses"->'Pickup'->>'Country', 'NO'),
  'DeliveryCountry', coalesce(s."addresses"->'Recipient'->>'Country', 'NO'))
FROM "shipments" s WHERE s."id" = i."shipment_id" AND NOT (i."facts" ? 'PickupCountry');--> statement-breakpoint
UPDATE "invoice_shipments" SET "facts" = "facts" || '{"PickupCountry": "NO", "DeliveryCountry": "NO"}'::jsonb
WHERE NOT ("facts" ? 'PickupCountry');--> statement-breakpoint
WITH "flat" AS (
  SELECT s."invoice_nr", s."line_nr", e.n, e.l,
    CASE WHEN s."facts"->>'PickupCountry' = 'NO' AND s."facts"->>'DeliveryCountry' = 'NO' THEN 25 ELSE 0 END AS pct
  FROM "invoice_shipments" s, jsonb_array_elements(s."lines") WITH ORDINALITY AS e(l, n)
  WHERE NOT (e.l ? 'VatPercent')
), "shares" AS (
  SELECT *, (l->>'AmountOre')::numeric * pct AS exact, floor((l->>'AmountOre')::numeric * pct / 100) AS fl
  FROM "flat"
), "ranked" AS (
  SELECT *,
    round(sum(exact) OVER g / 100) - sum(fl) OVER g AS extra,
    row_number() OVER (PARTITION BY invoice_nr, pct ORDER BY exact - 100 * fl DESC, line_nr, n) AS rank
  FROM "shares" WINDOW g AS (PARTITION BY invoice_nr, pct)
), "taxed" AS (
  SELECT invoice_nr, line_nr, jsonb_agg(l || jsonb_build_object('VatPercent', pct,
    'VatOre', (fl + CASE WHEN rank <= extra THEN 1 ELSE 0 END)::bigint) ORDER BY n) AS lines
  FROM "ranked" GROUP BY invoice_nr, line_nr
)
UPDATE "invoice_shipments" i SET "lines" = t.lines FROM "taxed" t
WHERE t.invoice_nr = i."invoice_nr" AND t.line_nr = i."line_nr";--> statement-breakpoint
-- The payer's organisation number and address, from the register as it is now.
UPDATE "invoices" v SET "customer_org_nr" = c."org_nr", "customer_address" = c."address"
FROM "customers" c WHERE c."customer_nr" = v."customer_nr" AND v."customer_org_nr" IS NULL;
