import { type Column, type SQL, sql } from 'drizzle-orm';

/**
 * A row as a JSON record for `json_populate_record(set)`: each value under its column's name and
 * written as the column stores it (Drizzle's own mapping: a Date as an ISO instant), JSON columns and
 * arrays as JSON, undefined left out. One JSON parameter instead of one per column and row: Drizzle
 * building a parameter at a time was a tenth of a booking's CPU, and over half of what recording a
 * request in the request log cost (bench/README.md). Its keys are the names of the columns it sets.
 */
export function jsonRecord<Row extends object>(
  columns: Record<keyof Row, Column>,
  row: Row,
): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const key in row) {
    const value = row[key];
    if (value === undefined) continue;
    const column = columns[key];
    record[column.name] =
      value === null || column.dataType === 'json' || column.dataType === 'array'
        ? value
        : column.mapToDriverValue(value);
  }
  return record;
}

/** The columns `names` as the quoted list of an insert's column list (`"a", "b"`). */
export const columnList = (names: readonly string[]): SQL =>
  sql.raw(names.map((name) => `"${name}"`).join(', '));

/**
 * `column` is one of `values`, sent as one array parameter: a statement takes at most 65 535
 * parameters, and a list of unbounded length (an invoicing run's shipments) must not need one each.
 * The array is a constant of the statement's plan, so the planner knows its length and matches it
 * by hash or index. `in (select json_array_elements_text(…))`, guessed at 100 rows, let a planner
 * that thought the table small (statistics not yet gathered after a day's bookings) re-read the whole
 * list for every row: 9.8 s for 7 000 shipments, against 44 ms once analysed.
 */
export const oneOf = (column: Column, values: readonly string[]): SQL =>
  sql`${column} = any(${sql.param([...values])}::text[])`;
