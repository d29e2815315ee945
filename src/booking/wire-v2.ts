import { ADDRESS_TYPES } from './model';
import type { AddressV2T, ShipmentUpdate, ShipmentV2 } from './schemas';

/**
 * The v2 booking body (`Addresses: [{AddressTypeId, ...}]`) as the one booking command, the v1 body
 * (CONTRACT §14): v1 and v2 are two wire shapes of the same request, mapped here at the edge, so one
 * rule set and one store serve both. Errors of the rules, which name the v1 fields
 * (`RecipientZip`), are renamed back to the list element the client sent (`Addresses[1].Zip`).
 */

type Prefix = (typeof ADDRESS_TYPES)[number]['block'];

/** `AddressTypeId` → the v1 block (its field prefix) and its name in messages (model.ts). */
const PREFIX_OF_TYPE: Record<number, Prefix> = Object.fromEntries(ADDRESS_TYPES.map((t) => [t.id, t.block]));
const PICKUP_POINT_TYPE = ADDRESS_TYPES.find((t) => t.block === 'PickupPoint')?.id;
const ROLE_OF_TYPE: Record<number, string> = Object.fromEntries(ADDRESS_TYPES.map((t) => [t.id, t.role]));
/** The longest prefix first: `PickupPointZip` is the pickup point's, not the pickup's. */
const BY_PREFIX_LENGTH = [...ADDRESS_TYPES].sort((a, b) => b.block.length - a.block.length);

const FIELDS = [
  'CompanyName',
  'FirstName',
  'LastName',
  'Address',
  'Address2',
  'Zip',
  'Place',
  'County',
  'Country',
] as const;
/** The pickup point block has no person name and no country field (pickup points are in Norway). */
const NOT_FOR_PICKUP_POINTS = new Set(['FirstName', 'LastName']);

export interface MappedV2 {
  /** The v1 command. */
  command: ShipmentUpdate;
  /** Rules broken by the list itself (a type given twice), reported with the booking's own. */
  violations: Record<string, string[]>;
  /** Renames a v1 error object's keys and messages to the v2 body's fields. */
  renameErrors: (errors: Record<string, string[]>) => Record<string, string[]>;
}

export function fromV2(body: ShipmentV2): MappedV2 {
  const { Addresses, ...rest } = body;
  const flat: Record<string, unknown> = { ...rest };
  const violations: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    violations[field] = [...(violations[field] ?? []), message];
  };
  /** Where each type sits in the request's list (its first occurrence). */
  const indexOfType = new Map<number, number>();

  Addresses.forEach((address: AddressV2T, i) => {
    const type = address.AddressTypeId;
    const prefix = PREFIX_OF_TYPE[type];
    if (!prefix) return; // the schema allows 1..4 only
    if (indexOfType.has(type)) {
      add(
        `Addresses[${i}].AddressTypeId`,
        `Address type ${type} (${ROLE_OF_TYPE[type]}) is given more than once; each type at most once.`,
      );
      return;
    }
    indexOfType.set(type, i);
    for (const field of FIELDS) {
      const value = address[field];
      if (value === undefined) continue;
      if (prefix === 'PickupPoint') {
        if (NOT_FOR_PICKUP_POINTS.has(field) && value.trim() !== '') {
          add(`Addresses[${i}].${field}`, `A pickup point address (type 4) has no ${field}.`);
          continue;
        }
        if (field === 'Country') {
          // The read record names pickup points' country (NO); sent back, it changes nothing.
          if (value.toUpperCase() !== 'NO')
            add(`Addresses[${i}].Country`, 'Pickup points are in Norway (NO).');
          continue;
        }
        if (NOT_FOR_PICKUP_POINTS.has(field)) continue;
      }
      flat[`${prefix}${field}`] = value;
    }
  });

  const renameErrors = (errors: Record<string, string[]>) => {
    const out = new Map<string, string[]>();
    const put = (key: string, messages: string[]) => {
      const list = out.get(key) ?? [];
      for (const m of messages) if (!list.includes(m)) list.push(m);
      out.set(key, list);
    };
    for (const [key, messages] of Object.entries(errors)) {
      const hit = v1AddressField(key);
      if (!hit) {
        put(key, messages);
        continue;
      }
      const index = indexOfType.get(hit.type);
      if (index === undefined) {
        // The rule asked for an address the list does not hold (a Published shipment without type 2,
        // a PickupPointId without type 4).
        put('Addresses', [
          hit.type === PICKUP_POINT_TYPE
            ? `An address of AddressTypeId ${hit.type} (${ROLE_OF_TYPE[hit.type]}) with an address line, zip and place is required when PickupPointId is given.`
            : `An address of AddressTypeId ${hit.type} (${ROLE_OF_TYPE[hit.type]}) with a name, address line, zip and place is required when the shipment is ReadyForPublish or Published.`,
        ]);
        continue;
      }
      const prefix = PREFIX_OF_TYPE[hit.type] ?? '';
      put(
        `Addresses[${index}].${hit.field}`,
        // The messages name the v1 fields (`RecipientFirstName`): say the element's field instead.
        messages.map((m) => m.replace(new RegExp(`\\b${prefix}(${FIELDS.join('|')})\\b`, 'g'), '$1')),
      );
    }
    return Object.fromEntries(out);
  };

  return { command: flat as ShipmentUpdate, violations, renameErrors };
}

/** `RecipientZip` → type 2, `Zip`; `PickupPointAddress` → type 4, `Address`; other names → null. */
function v1AddressField(key: string): { type: number; field: string } | null {
  for (const { id, block } of BY_PREFIX_LENGTH) {
    if (!key.startsWith(block)) continue;
    const field = key.slice(block.length);
    if ((FIELDS as readonly string[]).includes(field)) return { type: id, field };
  }
  return null;
}
