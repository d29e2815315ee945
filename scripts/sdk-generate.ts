// `npm run sdk:generate`: regenerates sdk/src/schema.ts from the served OpenAPI document.
import { writeFileSync } from 'node:fs';
import { GENERATED_FILE, generateSchemaTypes } from '../sdk/generate';
import { servedDocument } from './openapi';

writeFileSync(GENERATED_FILE, await generateSchemaTypes(await servedDocument()));
console.log(`wrote ${GENERATED_FILE}`);
