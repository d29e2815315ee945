-- A webhook registered before `expires` was bounded may expire after 9999-12-31T23:59:59 Oslo time,
-- which its record wrote with a five-digit year the API refuses back: it is moved to that latest
-- instant (still "never", as the client meant).
UPDATE "webhooks" SET "expires" = '9999-12-31 22:59:59+00' WHERE "expires" >= '9999-12-31 23:00:00+00';
