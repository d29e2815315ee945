-- Return shipments generated before 2026-11-27 were published without a planned pickup date, so the
-- listing never showed them: give each, while not yet picked up, its original's pickup date and windows.
UPDATE "shipments" r
SET "pickup_date" = o."pickup_date",
    "pickup_window_from" = o."pickup_window_from",
    "pickup_window_to" = o."pickup_window_to",
    "delivery_window_from" = o."delivery_window_from",
    "delivery_window_to" = o."delivery_window_to"
FROM "shipments" o
WHERE r."return_of" = o."id" AND r."is_return" AND r."pickup_date" IS NULL AND r."picked_up_at" IS NULL;
