import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMER_SCOPES } from '../auth/access';
import type { AuthService } from '../auth/service';
import type { Config } from '../config';
import type { CustomerService } from '../customers/service';
import { DomainError } from '../lib/errors';

export const SANDBOX_CUSTOMER_NR = '1000';

export interface SandboxCredentials {
  CustomerNr: string;
  PriceServiceId: string;
  KeyId: string;
  Key: string;
  Scopes: string[];
}

/**
 * On the first start against an empty database (no customers, no keys) outside production, creates
 * the demo customer 1000 and a sandbox key with every customer scope, and writes them to
 * `<dataDir>/sandbox-credentials.json`. Returns the credentials when it created them.
 */
/** What the sandbox seed uses: customers and keys. */
type SandboxServices = { customers: CustomerService; auth: AuthService };

export async function ensureSandbox(
  services: SandboxServices,
  config: Config,
): Promise<SandboxCredentials | null> {
  if (config.nodeEnv === 'production') return null;
  if ((await services.customers.list()).length > 0 || (await services.auth.countKeys()) > 0) return null;
  let customer: Awaited<ReturnType<CustomerService['create']>>;
  try {
    customer = await services.customers.create({
      CustomerNr: SANDBOX_CUSTOMER_NR,
      Name: 'Demo Kunde AS',
      OrgNr: '999999999',
      Address: { Address: 'Karl Johans gate 1', Zip: '0154', Place: 'OSLO', Country: 'NO' },
      Agreement: { FreightDiscountPercent: 10, SpecialUnitCodes: ['51'] },
    });
  } catch (e) {
    // Another process starting at the same moment created it first.
    if (e instanceof DomainError && e.code === 'customer_exists') return null;
    throw e;
  }
  {
    const key = await services.auth.createKey({
      name: 'Sandbox key',
      customerNrs: [SANDBOX_CUSTOMER_NR],
      scopes: [...CUSTOMER_SCOPES],
    });
    const credentials: SandboxCredentials = {
      CustomerNr: customer.CustomerNr,
      PriceServiceId: customer.PriceServiceId,
      KeyId: key.Id,
      Key: key.Key,
      Scopes: key.Scopes,
    };
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(
      join(config.dataDir, 'sandbox-credentials.json'),
      `${JSON.stringify(credentials, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    return credentials;
  }
}

/** Prints the sandbox credentials, on the run that created them (server start or `npm run migrate`). */
export function announceSandbox(credentials: SandboxCredentials, port: number): void {
  process.stdout.write(
    [
      '',
      'Sandbox credentials (shown once; also in sandbox-credentials.json in the data directory):',
      `  customer number : ${credentials.CustomerNr}`,
      `  API key id      : ${credentials.KeyId}`,
      `  API key         : ${credentials.Key}`,
      `  try             : curl -H "Authorization: Bearer ${credentials.Key}" http://localhost:${port}/v1/postalcodes/0150`,
      '',
    ].join('\n'),
  );
}
