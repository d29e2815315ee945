import type { Db } from '../db/client';
import { notFound, ValidationFailed, Violations } from '../lib/errors';
import { ttlCache } from '../lib/ttl-cache';
import { readCsv } from '../reference-data/files';
import {
  createPostalCodeService,
  notAnAddress,
  type PostalCodeService,
} from '../reference-data/postal-codes';
import { loadWhenChanged, replaceAsAdmin } from '../reference-data/terminals-loads';
import { distanceKm, type Point } from '../reference-data/terminals-routing';
import type { PickupPointRecord } from './sandbox';
import type { PickupPointImport, PickupPointView } from './schemas';
import { deletePoints, pointsAt, readAll, writeAll } from './store';

export const SANDBOX_FILE = 'pickup-points-sandbox.csv';
/** How long a process trusts its cached set; an import through this process is seen at once. */
export const PICKUP_POINT_CACHE_MS = 10_000;
export const DEFAULT_LIMIT = 10;

interface SandboxCsv {
  id: string;
  name: string;
  address: string;
  postal_code: string;
  place: string;
  lat: string;
  lon: string;
  opening_hours: string;
}

export function readSandboxFile(): { sha256: string; points: PickupPointRecord[] } {
  const file = readCsv<SandboxCsv>(SANDBOX_FILE);
  return {
    sha256: file.sha256,
    points: file.rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      address: r.address,
      postalCode: r.postal_code,
      place: r.place,
      lat: Number(r.lat),
      lon: Number(r.lon),
      openingHours: r.opening_hours,
      sandbox: true,
    })),
  };
}

const round2 = (km: number) => Math.round(km * 100) / 100;

export const viewOf = (p: PickupPointRecord, km: number | null = null): PickupPointView => ({
  Id: p.id,
  Name: p.name,
  Address: p.address,
  Zip: p.postalCode,
  Place: p.place,
  Latitude: p.lat,
  Longitude: p.lon,
  DistanceKm: km === null ? null : round2(km),
  OpeningHours: p.openingHours,
  Sandbox: p.sandbox,
});

/**
 * The `limit` points nearest to `from`, nearest first by great-circle distance (ties by id, so the
 * order never depends on storage order). Pure.
 *
 * Keeps only the best `limit` while it walks the list instead of sorting every point: an import may
 * hold 50 000 points, and sorting them all blocked the event loop for tens of milliseconds per search.
 */
export function nearest(
  points: readonly PickupPointRecord[],
  from: Point,
  limit: number,
): { point: PickupPointRecord; km: number }[] {
  type Hit = { point: PickupPointRecord; km: number };
  const before = (a: Hit, b: Hit) => a.km < b.km || (a.km === b.km && a.point.id < b.point.id);
  const best: Hit[] = [];
  for (const point of points) {
    const hit = { point, km: distanceKm(from, point) };
    const worst = best[best.length - 1];
    if (best.length >= limit && worst && !before(hit, worst)) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(best[mid] as Hit, hit)) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, hit);
    if (best.length > limit) best.pop();
  }
  return best;
}

export type PickupPointService = ReturnType<typeof createPickupPointService>;

/** Pickup points: the shipped sandbox set or an imported real list (`docs/catalogue.md`). */
export function createPickupPointService({
  db,
  cacheMs = PICKUP_POINT_CACHE_MS,
  postalCodes = createPostalCodeService({ db }),
}: {
  db: Db;
  cacheMs?: number;
  /** The postal register (zips of an import, the position of a search's postal code). */
  postalCodes?: PostalCodeService;
}) {
  const cache = ttlCache(
    () => readAll(db).then((list) => ({ list, byId: new Map(list.map((p) => [p.id, p])) })),
    cacheMs,
  );
  const all = cache.get;
  // A register that withdraws a point's postal code asks first, and retires the point with it.
  postalCodes.dependedOnBy({
    what: 'pickup points',
    at: async (tx, codes) =>
      (await pointsAt(tx, codes)).map((p) => ({ id: String(p.id), postalCode: p.postalCode })),
    retire: async (tx, ids) => {
      await deletePoints(tx, ids.map(Number));
      cache.clear();
    },
  });

  const zipsOf = (points: readonly Partial<PickupPointImport['PickupPoints'][number]>[]) => [
    ...new Set(points.flatMap((p) => (typeof p.Zip === 'string' ? [p.Zip] : []))),
  ];

  /**
   * The rules of an import beyond its schema: ids unique, zips among the register's postal codes
   * (`categories`: each known code's category) and none a service code, no address at all. Throws
   * `ValidationFailed` naming every violation. Also run on what the schema accepted of a refused
   * import (`domainRules`), so its points may lack the fields the schema refused: those are skipped.
   */
  function judgeImport(
    points: readonly Partial<PickupPointImport['PickupPoints'][number]>[],
    categories: ReadonlyMap<string, string>,
  ): void {
    const v = new Violations();
    const ids = new Set<number>();
    points.forEach((p, i) => {
      if (typeof p.Id === 'number') {
        v.check(`PickupPoints[${i}].Id`, !ids.has(p.Id), `Pickup point id ${p.Id} is listed twice.`);
        ids.add(p.Id);
      }
      if (typeof p.Zip === 'string') {
        const category = categories.get(p.Zip);
        const field = `PickupPoints[${i}].Zip`;
        if (v.check(field, category !== undefined, `Postal code ${p.Zip} is not in the postal register.`)) {
          const notAddress = notAnAddress(p.Zip, category);
          if (notAddress) v.add(field, notAddress);
        }
      }
    });
    v.throwIfAny();
  }

  return {
    /** Loads the shipped sandbox set when the file changed, unless an admin imported a real list. */
    async loadShipped(): Promise<boolean> {
      const { sha256, points } = readSandboxFile();
      const loaded = await loadWhenChanged(db, SANDBOX_FILE, sha256, (tx) => writeAll(tx, points));
      if (loaded) cache.clear();
      return loaded;
    },

    /** `judgeImport` against the register as the in-memory snapshot has it (a refused import's rest). */
    async checkImport(points: readonly Partial<PickupPointImport['PickupPoints'][number]>[]): Promise<void> {
      judgeImport(points, await postalCodes.categoriesOf(zipsOf(points)));
    },

    /**
     * Replaces every pickup point with an imported list (admin API), in one transaction. Ids must be
     * unique and zips in the postal register. The sandbox file never overwrites an imported list.
     */
    async importPoints(body: PickupPointImport): Promise<{ count: number }> {
      const points: PickupPointRecord[] = body.PickupPoints.map((p) => ({
        id: p.Id,
        name: p.Name,
        address: p.Address,
        postalCode: p.Zip,
        place: p.Place,
        lat: p.Latitude,
        lon: p.Longitude,
        openingHours: p.OpeningHours,
        sandbox: false,
      }));
      await replaceAsAdmin(db, SANDBOX_FILE, points, async (tx) => {
        // Judged under the register's hold: an import withdrawing one of these zips waits.
        judgeImport(body.PickupPoints, await postalCodes.holdRegister(tx, zipsOf(body.PickupPoints)));
        await writeAll(tx, points);
      });
      cache.clear();
      return { count: points.length };
    },

    /** The pickup point, or null (booking's `PickupPointId` rule). */
    async get(id: number): Promise<PickupPointView | null> {
      const p = (await all()).byId.get(id);
      return p ? viewOf(p) : null;
    },

    /** `GET /v1/pickuppoints/{id}`: the point, or 404. */
    async view(id: number): Promise<PickupPointView> {
      const p = await this.get(id);
      if (!p) throw notFound(`Pickup point ${id}`);
      return p;
    },

    /**
     * `GET /v1/pickuppoints`: the `limit` points nearest the postal code's coordinate, nearest first,
     * with the distance. An unknown postal code is a 400 naming `postalCode`.
     */
    async nearestTo(postalCode: string, limit = DEFAULT_LIMIT): Promise<PickupPointView[]> {
      const { found, point } = await postalCodes.coordinateOf(postalCode);
      if (!found)
        throw new ValidationFailed({
          postalCode: [`Postal code ${postalCode} is not in the postal register.`],
        });
      if (!point) {
        throw new ValidationFailed({ postalCode: [`Postal code ${postalCode} has no known position.`] });
      }
      return nearest((await all()).list, point, limit).map(({ point: p, km }) => viewOf(p, km));
    },
  };
}
