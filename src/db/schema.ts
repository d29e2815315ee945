// Every table of every domain, for Drizzle's typed queries and drizzle-kit's migrations.
export * from '../auth/tables';
export * from '../booking/tables';
export * from '../catalog/tables';
export * from '../customers/tables';
export * from '../events/tables';
export * from '../http/rate-limit-tables';
export * from '../invoicing/tables';
export * from '../jobs/tables';
export * from '../operations/tables';
export * from '../pickup-points/tables';
export * from '../pricing/tables';
export * from '../reference-data/tables';
export * from '../reference-data/terminals-tables';
export * from '../webhooks/tables';
export * from './tables';
