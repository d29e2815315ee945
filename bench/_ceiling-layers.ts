// The layers of the ceiling's price route (bench/_ceiling.ts), in the order bench/layers.ts adds them.
// A module of its own so the ceiling's server process loads nothing of the load generator's.
export const CEILING_LAYERS = ['headers', 'auth', 'validation', 'quote', 'schema', 'metrics', 'log'] as const;
