// `npm run build` (after tsc): compiles src/IntentExecutor.sol into dist/IntentExecutor.json
// (ABI, creation and runtime code, solc version, settings) and dist/IntentExecutor.input.json
// (the standard-JSON input with every imported source, for a block explorer's verification).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACT_FILE, CONTRACT_NAME, SOURCE_NAME } from './artifact.js';
import { compileSolidity, SOLC_SETTINGS } from './solc.js';

const packageDir = join(import.meta.dirname, '..');
const source = readFileSync(join(packageDir, 'src', SOURCE_NAME), 'utf8');
const compilation = compileSolidity({ [SOURCE_NAME]: source });
if (compilation.warnings.length > 0) {
  // A warning in our own contract is a bug to fix, not noise to scroll past.
  process.stderr.write(`${compilation.warnings.join('\n')}\n`);
  process.exit(1);
}
const contract = compilation.contracts[SOURCE_NAME]?.[CONTRACT_NAME];
if (!contract) throw new Error(`solc produced no ${CONTRACT_NAME}`);
const dist = join(packageDir, 'dist');
mkdirSync(dist, { recursive: true });
const artifact = { contractName: CONTRACT_NAME, sourceName: SOURCE_NAME, solcVersion: compilation.solcVersion, settings: SOLC_SETTINGS, ...contract };
writeFileSync(join(dist, ARTIFACT_FILE), `${JSON.stringify(artifact, null, 2)}\n`);
writeFileSync(join(dist, `${CONTRACT_NAME}.input.json`), `${JSON.stringify(compilation.input)}\n`);
