// Compiles AgentRig.sol and the devnet's two contracts with the solc version pinned in
// package.json, through the standard-JSON API, and writes into OUTDIR:
//   AgentRig.abi, AgentRig.bin               the reference contract (ABI JSON, creation bytecode)
//   AgentRigDevnet.bin                       its devnet build (same ABI), creation bytecode
//   DevnetArbOS.abi, DevnetArbOS.runtime.bin the devnet's ArbOS stand-in, placed in its genesis
//                                            (so its runtime bytecode, not a creation one)
// Warnings fail the build: the committed contracts compile clean.
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

// Each source key is its bare file name, so that the metadata hash in the bytecode does not
// depend on where the checkout lives. A contract's metadata covers only the sources it uses, so
// AgentRig's bytecode depends on AgentRig.sol alone.
const files = ['AgentRig.sol', 'AgentRigDevnet.sol', 'DevnetArbOS.sol'];
const sources = {};
for (const f of files) sources[f] = { content: fs.readFileSync(path.join(__dirname, f), 'utf8') };
const wanted = ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'];
const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun', // what an Arbitrum chain and go-ethereum's simulated backend both run
    viaIR: true, // settle and taskOf need more locals than the legacy pipeline's stack allows
    outputSelection: {
      'AgentRig.sol': { AgentRig: wanted },
      'AgentRigDevnet.sol': { AgentRigDevnet: wanted },
      'DevnetArbOS.sol': { DevnetArbOS: wanted },
    },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
const problems = output.errors || [];
for (const e of problems) console.error(e.formattedMessage || e.message);
if (problems.length > 0) {
  console.error(`solc ${solc.version()}: ${problems.length} error(s) or warning(s); nothing written`);
  process.exit(1);
}
const built = {};
for (const [file, name] of [['AgentRig.sol', 'AgentRig'], ['AgentRigDevnet.sol', 'AgentRigDevnet'], ['DevnetArbOS.sol', 'DevnetArbOS']]) {
  const contract = output.contracts[file][name];
  const runtimeSize = contract.evm.deployedBytecode.object.length / 2;
  if (runtimeSize > 24576) {
    console.error(`${name}: runtime code is ${runtimeSize} bytes, over the EIP-170 limit of 24576`);
    process.exit(1);
  }
  console.error(`solc ${solc.version()}: ${name} runtime ${runtimeSize} bytes`);
  built[name] = contract;
}
fs.mkdirSync(outDir, { recursive: true });
const write = (file, text) => fs.writeFileSync(path.join(outDir, file), text);
write('AgentRig.abi', JSON.stringify(built.AgentRig.abi, null, 2) + '\n');
write('AgentRig.bin', built.AgentRig.evm.bytecode.object + '\n');
write('AgentRigDevnet.bin', built.AgentRigDevnet.evm.bytecode.object + '\n');
write('DevnetArbOS.abi', JSON.stringify(built.DevnetArbOS.abi, null, 2) + '\n');
write('DevnetArbOS.runtime.bin', built.DevnetArbOS.evm.deployedBytecode.object + '\n');
