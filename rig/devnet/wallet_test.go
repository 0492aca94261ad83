package devnet

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// ethersNode finds node and the ethers package rig/contract pins (npm ci there installs it; so
// does scripts/check-contract). The test is skipped only when they are absent.
func ethersNode(t *testing.T) (nodeBin, modules string) {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	modules, err = filepath.Abs(filepath.Join("..", "contract", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "ethers", "package.json")); err != nil {
		t.Skip("rig/contract/node_modules/ethers is absent (run npm ci in rig/contract)")
	}
	return nodeBin, modules
}

// runEthers runs a script with ethers on node, its input as JSON on stdin, and decodes the JSON
// it prints.
func runEthers(t *testing.T, script string, in, out any) {
	t.Helper()
	nodeBin, modules := ethersNode(t)
	input, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBin, "-e", script)
	cmd.Env = append(os.Environ(), "ETHERS_MODULES="+modules)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("node's stderr:\n%s", stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("ethers printed %q: %v\n%s", res, err, stderr.String())
	}
}

// walletScript is what a developer's first minute with the devnet looks like: an ethers.js
// wallet sending transfers one after the other, each waiting for its receipt before the next
// (the nonce of the next comes from eth_getTransactionCount(address, "pending")).
const walletScript = `
const { ethers } = require(process.env.ETHERS_MODULES + '/ethers');
(async () => {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const provider = new ethers.JsonRpcProvider(input.rpc, undefined, { staticNetwork: true, pollingInterval: 50 });
  const wallet = new ethers.Wallet(input.key, provider);
  const out = { sent: 0, failures: [] };
  for (let i = 0; i < input.sends; i++) {
    try {
      const tx = await wallet.sendTransaction({ to: input.to, value: 1n });
      const receipt = await tx.wait();
      if (receipt.status !== 1) throw new Error('reverted');
      out.sent++;
    } catch (e) {
      out.failures.push(String(e.shortMessage || e.message));
    }
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

// Thirty transfers from an ethers.js wallet, each sent once the previous one's receipt is in,
// all succeed, on an Ethereum-style chain and on a young and an old Nitro-style one. ethers.js
// shares identical requests made within 250 ms, so a receipt found sooner than that after the
// wallet's eth_getTransactionCount left the next transaction with the previous one's nonce
// ("nonce has already been used"): 4 to 9 of 30 went through on the devnet before its sequencer
// held every transaction MinBlockInterval.
func TestAnEthersWalletSendsThirtyTransfersInARow(t *testing.T) {
	for _, l1 := range []uint64{0, 21_000_000, 1} {
		t.Run(fmt.Sprint(l1), func(t *testing.T) { walletSends(t, l1) })
	}
}

func walletSends(t *testing.T, l1 uint64) {
	ethersNode(t)
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	// With a heartbeat, as `pricerig devnet` runs its chain today: a transaction sent long after
	// the last block must still wait.
	c, err := StartChainWithOptions(types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether))}},
		ChainOptions{L1Block: l1, Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	to := from
	to[0] ^= 1
	var out struct {
		Sent     int
		Failures []string
	}
	runEthers(t, walletScript, map[string]any{"rpc": c.URL, "key": "0x" + hex.EncodeToString(crypto.FromECDSA(key)), "to": to.Hex(), "sends": 30}, &out)
	if out.Sent != 30 || len(out.Failures) != 0 {
		t.Fatalf("%d of 30 transfers went through; failures: %q", out.Sent, out.Failures)
	}
}
