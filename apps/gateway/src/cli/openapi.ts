import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, renderOpenApiDocument } from '../openapi/openapi.js';

/** `npm run openapi`: writes the OpenAPI document, generated from the route table and the contracts' schemas, to `openapi.json`. */
writeFileSync(OPENAPI_FILE, renderOpenApiDocument());
process.stderr.write(`wrote ${OPENAPI_FILE}\n`);
