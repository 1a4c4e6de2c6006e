import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createEVM } from '@ethereumjs/evm';
import { Account, bigIntToBytes, bytesToHex, createAddressFromString, generateAddress, generateAddress2, hexToBytes } from '@ethereumjs/util';
import { create2Address, installFastInterpreter, PATCHED_ETHEREUMJS, PATCHED_PACKAGES } from './fast-interpreter.js';

describe('create2Address', () => {
  it("gives EIP-1014's example addresses", () => {
    const vectors: [`0x${string}`, `0x${string}`, `0x${string}`, string][] = [
      ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0x00', '0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38'],
      ['0xdeadbeef00000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0x00', '0xb928f69bb1d91cd65274e3c79d8986362984fda3'],
      [
        '0x00000000000000000000000000000000deadbeef',
        '0x00000000000000000000000000000000000000000000000000000000cafebabe',
        '0xdeadbeef',
        '0x60f3f640a8508fc6a86d45df051962668e1e8ac7',
      ],
      ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0x', '0xe33c0c7f7df4809055c3eba6c09cfe4baf1bd9e0'],
    ];
    for (const [deployer, salt, code, address] of vectors) {
      expect(bytesToHex(create2Address(hexToBytes(deployer), hexToBytes(salt), hexToBytes(code)))).toBe(address);
    }
  });

  it('agrees with ethereumjs on init code of any length', () => {
    for (const length of [0, 1, 135, 136, 137, 5_000, 24_576]) {
      const [deployer, salt, code] = [randomBytes(20), randomBytes(32), randomBytes(length)];
      expect(bytesToHex(create2Address(deployer, salt, code))).toBe(bytesToHex(generateAddress2(deployer, salt, code)));
    }
  });
});

describe('installFastInterpreter', () => {
  it('leaves CREATE2 and CREATE deploying where the chain would', async () => {
    await installFastInterpreter();
    const evm = await createEVM();
    const self = createAddressFromString('0x00000000000000000000000000000000000000c0');
    // memory[0] = 0x00 (init code: STOP); CREATE2(0, 0, 1, 0x2a), then CREATE(0, 0, 1); return both addresses.
    const code = hexToBytes(`0x${'600060005360' + '2a' + '600160006000f5' + '600052' + '600160006000f0' + '602052' + '60406000f3'}`);
    await evm.stateManager.putAccount(self, new Account());
    await evm.stateManager.putCode(self, code);
    const { returnValue, exceptionError } = (
      await evm.runCall({ to: self, caller: createAddressFromString('0x00000000000000000000000000000000000000c1'), gasLimit: 1_000_000n })
    ).execResult;
    expect(exceptionError).toBeUndefined();
    const [created2, created] = [bytesToHex(returnValue.subarray(12, 32)), bytesToHex(returnValue.subarray(44, 64))];
    expect(created2).toBe(bytesToHex(generateAddress2(self.bytes, hexToBytes(`0x${'00'.repeat(31)}2a`), hexToBytes('0x00'))));
    // The CREATE comes after the CREATE2 raised the deployer's nonce from 0 to 1.
    expect(created).toBe(bytesToHex(generateAddress(self.bytes, bigIntToBytes(1n))));
    expect(created2).not.toBe(created);
  });
});

describe('the ethereumjs release the patch was written against', () => {
  const manifest = createRequire(import.meta.url)('../../package.json') as { dependencies: Record<string, string> };
  /** The installed version of `name` (the packages export no package.json: it is found above their entry point). */
  const installed = (name: string): string => {
    for (let dir = dirname(createRequire(import.meta.url).resolve(name)); dirname(dir) !== dir; dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      const found = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string }) : null;
      if (found?.name === name) return found.version;
    }
    throw new Error(`no package.json of ${name} above its entry point`);
  };

  it.each(PATCHED_PACKAGES)('%s is installed at exactly the version fast-interpreter.ts patches, and pinned so', (name) => {
    const found = installed(name);
    const patch = `fast-interpreter.ts (installFastInterpreter) copies @ethereumjs ${PATCHED_ETHEREUMJS}'s Interpreter.run/runStep and opcodes/gas.js`;
    if (found !== PATCHED_ETHEREUMJS) {
      throw new Error(`${name} ${found} is installed, but ${patch}: compare the patch with ${found}'s interpreter before changing PATCHED_ETHEREUMJS`);
    }
    expect(manifest.dependencies[name]).toBe(PATCHED_ETHEREUMJS);
  });
});
