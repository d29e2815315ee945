import { defineConfig } from 'drizzle-kit';

// Every domain's tables (each domain owns its `tables.ts`); the database layer itself knows none.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/*/tables.ts', './src/*/*-tables.ts'],
  out: './src/db/migrations',
});
