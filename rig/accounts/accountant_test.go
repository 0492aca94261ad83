package accounts

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
)

// describeTx names a transaction by the function it calls and charges each entry of a batch to
// the rig whose operator signed it.
func TestTransactionsAreDescribedFromTheirCallData(t *testing.T) {
	k1, _ := crypto.GenerateKey()
	k2, _ := crypto.GenerateKey()
	kr, _ := crypto.GenerateKey()
	stranger, _ := crypto.GenerateKey()
	contract := common.HexToAddress("0x5fbdb2315678afecb367f032d93f642f64180aa3")
	r := New(Config{Domain: task.Domain{ChainID: big.NewInt(4663), Contract: contract}})
	r.AddRig(Rig{ID: 4, Operator: crypto.PubkeyToAddress(k1.PublicKey)})
	r.AddRig(Rig{ID: 6, Operator: crypto.PubkeyToAddress(k2.PublicKey)})
	abi := agentrig.NewAgentRig()
	relayer := crypto.PubkeyToAddress(kr.PublicKey)
	op1 := crypto.PubkeyToAddress(k1.PublicKey)

	purpose, entries := r.describeTx(op1, abi.PackDraw(big.NewInt(12)))
	if purpose != "draw" || len(entries) != 1 || entries[0] != (journal.TaskRig{TaskID: 12, RigID: 4}) {
		t.Errorf("draw: %s %+v", purpose, entries)
	}
	purpose, entries = r.describeTx(relayer, abi.PackSettle(big.NewInt(13)))
	if purpose != "settle" || len(entries) != 1 || entries[0] != (journal.TaskRig{TaskID: 13, RigID: 0}) {
		t.Errorf("settle by the relayer: %s %+v", purpose, entries)
	}
	purpose, entries = r.describeTx(op1, abi.PackReveal(big.NewInt(14), numeric.MustPrice("1").Answer(), [32]byte{1}))
	if purpose != "reveal" || entries[0] != (journal.TaskRig{TaskID: 14, RigID: 4}) {
		t.Errorf("reveal: %s %+v", purpose, entries)
	}
	sign := func(k interface {
		SignDigest(common.Hash) ([]byte, error)
	}, d common.Hash, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		sig, err := k.SignDigest(d)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	var commits []agentrig.AgentRigCommit
	var sigs [][]byte
	for _, c := range []struct {
		task uint64
		key  *task.KeySigner
	}{{20, task.NewKeySigner(k1)}, {20, task.NewKeySigner(k2)}, {21, task.NewKeySigner(k2)}, {21, task.NewKeySigner(stranger)}} {
		cm := common.Hash{byte(c.task)}
		commits = append(commits, agentrig.AgentRigCommit{TaskId: new(big.Int).SetUint64(c.task), Commitment: cm})
		d, err := r.domain.CommitDigest(new(big.Int).SetUint64(c.task), cm)
		sigs = append(sigs, sign(c.key, d, err))
	}
	purpose, entries = r.describeTx(relayer, abi.PackCommitMany(commits, sigs))
	want := []journal.TaskRig{{TaskID: 20, RigID: 4}, {TaskID: 20, RigID: 6}, {TaskID: 21, RigID: 6}, {TaskID: 21, RigID: 0}}
	if purpose != "commitMany" || len(entries) != len(want) {
		t.Fatalf("commitMany: %s %+v", purpose, entries)
	}
	for i := range want {
		if entries[i] != want[i] {
			t.Errorf("commitMany entry %d: %+v, want %+v", i, entries[i], want[i])
		}
	}
	ans, salt := numeric.MustPrice("181.07").Answer(), [32]byte{7}
	d, err := r.domain.RevealDigest(big.NewInt(22), ans, salt)
	purpose, entries = r.describeTx(relayer, abi.PackRevealMany([]agentrig.AgentRigReveal{{TaskId: big.NewInt(22), Answer: ans, Salt: salt}},
		[][]byte{sign(task.NewKeySigner(k2), d, err)}))
	if purpose != "revealMany" || len(entries) != 1 || entries[0] != (journal.TaskRig{TaskID: 22, RigID: 6}) {
		t.Errorf("revealMany: %s %+v", purpose, entries)
	}
	// entries and signatures that do not pair up: the batch is charged to its sender, unknown
	purpose, entries = r.describeTx(op1, abi.PackCommitMany(commits, sigs[:3]))
	if purpose != "commitMany" || len(entries) != 1 || entries[0] != (journal.TaskRig{RigID: 4}) {
		t.Errorf("commitMany with a signature missing: %s %+v", purpose, entries)
	}
	purpose, entries = r.describeTx(relayer, []byte{1, 2, 3, 4, 5})
	if purpose != "unknown" || len(entries) != 1 || entries[0] != (journal.TaskRig{}) {
		t.Errorf("unknown call data: %s %+v", purpose, entries)
	}
}
