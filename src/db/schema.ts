// Every table of every domain, for Drizzle's typed queries and drizzle-kit's migrations.
export * from '../auth/tables';
export * from '../booking/tables';
export * from '../customers/tables';
export * from '../events/tables';
export * from '../operations/tables';
export * from '../pricing/tables';
export * from '../reference-data/tables';
export * from '../webhooks/tables';
export * from './tables';
