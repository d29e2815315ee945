ALTER TABLE "invoices" ADD COLUMN "customer_org_nr" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "customer_address" jsonb;--> statement-breakpoint
-- Invoices issued before VAT was itemised: their countries from the booking (Norway when unknown),
-- then VAT per cost line by the rule of src/invoicing/vat.ts (25 % when both ends are in Norway,
-- else 0 %; round() on numeric rounds half away from zero, as the rule does).
UPDATE "invoice_shipments" i SET "facts" = i."facts" || jsonb_build_object(
  'PickupCountry', coalesce(s."addresses"->'Pickup'->>'Country', 'NO'),
  'DeliveryCountry', coalesce(s."addresses"->'Recipient'->>'Country', 'NO'))
FROM "shipments" s WHERE s."id" = i."shipment_id" AND NOT (i."facts" ? 'PickupCountry');--> statement-breakpoint
UPDATE "invoice_shipments" SET "facts" = "facts" || '{"PickupCountry": "NO", "DeliveryCountry": "NO"}'::jsonb
WHERE NOT ("facts" ? 'PickupCountry');--> statement-breakpoint
UPDATE "invoice_shipments" SET "lines" = coalesce((
  SELECT jsonb_agg(e.l || jsonb_build_object('VatPercent', r.pct,
    'VatOre', round((e.l->>'AmountOre')::numeric * r.pct / 100)) ORDER BY e.n)
  FROM jsonb_array_elements("lines") WITH ORDINALITY AS e(l, n),
    (SELECT CASE WHEN "facts"->>'PickupCountry' = 'NO' AND "facts"->>'DeliveryCountry' = 'NO'
      THEN 25 ELSE 0 END AS pct) r), '[]'::jsonb)
WHERE EXISTS (SELECT 1 FROM jsonb_array_elements("lines") x WHERE NOT (x ? 'VatPercent'));--> statement-breakpoint
-- The payer's organisation number and address, from the register as it is now.
UPDATE "invoices" v SET "customer_org_nr" = c."org_nr", "customer_address" = c."address"
FROM "customers" c WHERE c."customer_nr" = v."customer_nr" AND v."customer_org_nr" IS NULL;
