// Compiles AgentRig.sol with the solc version pinned in package.json, through the standard-JSON
// API, and writes OUTDIR/AgentRig.abi (JSON) and OUTDIR/AgentRig.bin (creation bytecode, hex).
// Warnings fail the build: the committed contract compiles clean.
//
//   node build.js OUTDIR
'use strict';
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node build.js OUTDIR');
  process.exit(2);
}

const name = 'AgentRig';
const file = `${name}.sol`;
const input = {
  language: 'Solidity',
  // The source key is fixed so that the metadata hash in the bytecode does not depend on where
  // the checkout lives.
  sources: { [file]: { content: fs.readFileSync(path.join(__dirname, file), 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun', // what an Arbitrum chain and go-ethereum's simulated backend both run
    viaIR: true, // settle and taskOf need more locals than the legacy pipeline's stack allows
    outputSelection: { [file]: { [name]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
const problems = output.errors || [];
for (const e of problems) console.error(e.formattedMessage || e.message);
if (problems.length > 0) {
  console.error(`solc ${solc.version()}: ${problems.length} error(s) or warning(s); nothing written`);
  process.exit(1);
}
const contract = output.contracts[file][name];
const runtimeSize = contract.evm.deployedBytecode.object.length / 2;
if (runtimeSize > 24576) {
  console.error(`runtime code is ${runtimeSize} bytes, over the EIP-170 limit of 24576`);
  process.exit(1);
}
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, `${name}.abi`), JSON.stringify(contract.abi, null, 2) + '\n');
fs.writeFileSync(path.join(outDir, `${name}.bin`), contract.evm.bytecode.object + '\n');
console.error(`solc ${solc.version()}: ${name} runtime ${runtimeSize} bytes`);
