package devnet

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
)

// nitroAPI answers the eth_ methods where Nitro's JSON-RPC differs from go-ethereum's, on the
// node's own server (HTTP and websockets alike): registered after go-ethereum's services, its
// methods replace theirs of the same name. Each calls go-ethereum's own method on an in-process
// server that holds only go-ethereum's eth services, then adds what Nitro adds:
//
//   - "pending" is "latest" everywhere but in eth_getTransactionCount: Nitro has no pending
//     block or pool to read (OffchainLabs/nitro arbitrum/apibackend.go: the pending block is the
//     latest one, and GetPoolNonce is the latest state's nonce). Its sequencer has mined a
//     transaction by the time eth_sendRawTransaction returns; the devnet's holds one
//     MinBlockInterval in its pool, so the pending nonce counts the pool's transactions too, as
//     Nitro's counts them once sent: every mined transaction, and every one still held;
//   - blocks and headers, newHeads notifications included, carry l1BlockNumber, sendCount and
//     sendRoot, read from the header's mixHash and extraData (OffchainLabs/go-ethereum
//     internal/ethapi/api.go, fillArbitrumNitroHeaderInfo);
//   - receipts carry l1BlockNumber and gasUsedForL1 (the same file's receipt marshalling).
//
// What the front does not change is what the hashes cover: a Nitro header's difficulty is 1, and
// Nitro's JSON says "0x1" (the recorded Arbitrum One block in rig/testdata/nitro hashes to its
// own hash only with difficulty 1), but the devnet's blocks are go-ethereum's, whose consensus
// rules want difficulty 0 after the merge; the JSON keeps saying "0x0", so that a client
// recomputing a header's hash from the JSON gets the hash the node reports. The nonce (Nitro's
// delayed-message count) stays 0 for the same reason.
//
// A JSON-RPC proxy in front of the node could do the same, but would have to re-implement what
// go-ethereum's server already does right (batches, websocket framing, subscriptions, limits);
// overriding by method keeps one server and changes only answers.
type nitroAPI struct {
	geth  *rpc.Client // go-ethereum's eth services, in process
	chain *core.BlockChain
	fees  *l1FeeProcessor // the L1 parts the chain charged; nil: none
	price *big.Int        // what a transaction pays per gas here: the sealer's least tip (the base fee is 0)
}

func newNitroAPI(backend *eth.Ethereum, fs *filters.FilterSystem, fees *l1FeeProcessor, price *big.Int) (*nitroAPI, error) {
	srv := rpc.NewServer()
	for _, api := range backend.APIs() {
		if api.Namespace != "eth" {
			continue
		}
		if err := srv.RegisterName("eth", api.Service); err != nil {
			return nil, fmt.Errorf("devnet: %w", err)
		}
	}
	if err := srv.RegisterName("eth", filters.NewFilterAPI(fs)); err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	return &nitroAPI{geth: rpc.DialInProc(srv), chain: backend.BlockChain(), fees: fees, price: price}, nil
}

// latest is a block reference with "pending" read as "latest" (nil: latest).
func latest(b *rpc.BlockNumberOrHash) rpc.BlockNumberOrHash {
	if b == nil {
		return rpc.BlockNumberOrHashWithNumber(rpc.LatestBlockNumber)
	}
	if n, ok := b.Number(); ok && n == rpc.PendingBlockNumber {
		return rpc.BlockNumberOrHashWithNumber(rpc.LatestBlockNumber)
	}
	return *b
}

func latestNumber(n rpc.BlockNumber) rpc.BlockNumber {
	if n == rpc.PendingBlockNumber {
		return rpc.LatestBlockNumber
	}
	return n
}

// call is go-ethereum's own answer to method, raw.
func (api *nitroAPI) call(ctx context.Context, method string, args ...any) (json.RawMessage, error) {
	var out json.RawMessage
	if err := api.geth.CallContext(ctx, &out, "eth_"+method, args...); err != nil {
		return nil, err
	}
	return out, nil
}

// GetBlockByNumber is eth_getBlockByNumber with Nitro's block fields.
func (api *nitroAPI) GetBlockByNumber(ctx context.Context, number rpc.BlockNumber, fullTx bool) (json.RawMessage, error) {
	return withHeaderInfo(api.call(ctx, "getBlockByNumber", latestNumber(number), fullTx))
}

// GetBlockByHash is eth_getBlockByHash with Nitro's block fields.
func (api *nitroAPI) GetBlockByHash(ctx context.Context, hash common.Hash, fullTx bool) (json.RawMessage, error) {
	return withHeaderInfo(api.call(ctx, "getBlockByHash", hash, fullTx))
}

// GetHeaderByNumber is go-ethereum's eth_getHeaderByNumber with Nitro's block fields.
func (api *nitroAPI) GetHeaderByNumber(ctx context.Context, number rpc.BlockNumber) (json.RawMessage, error) {
	return withHeaderInfo(api.call(ctx, "getHeaderByNumber", latestNumber(number)))
}

// GetHeaderByHash is go-ethereum's eth_getHeaderByHash with Nitro's block fields.
func (api *nitroAPI) GetHeaderByHash(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	return withHeaderInfo(api.call(ctx, "getHeaderByHash", hash))
}

// GetTransactionReceipt is eth_getTransactionReceipt with Nitro's receipt fields.
func (api *nitroAPI) GetTransactionReceipt(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	return api.withReceiptInfo(api.call(ctx, "getTransactionReceipt", hash))
}

// GetBlockReceipts is eth_getBlockReceipts with Nitro's receipt fields.
func (api *nitroAPI) GetBlockReceipts(ctx context.Context, block rpc.BlockNumberOrHash) (json.RawMessage, error) {
	raw, err := api.call(ctx, "getBlockReceipts", latest(&block))
	if err != nil || isNull(raw) {
		return raw, err
	}
	var receipts []json.RawMessage
	if err := json.Unmarshal(raw, &receipts); err != nil {
		return nil, err
	}
	for i, r := range receipts {
		if receipts[i], err = api.withReceiptInfo(r, nil); err != nil {
			return nil, err
		}
	}
	return json.Marshal(receipts)
}

// SendRawTransactionSync is eth_sendRawTransactionSync (EIP-7966), whose answer is the receipt.
func (api *nitroAPI) SendRawTransactionSync(ctx context.Context, input hexutil.Bytes, timeoutMs *uint64) (json.RawMessage, error) {
	return api.withReceiptInfo(api.call(ctx, "sendRawTransactionSync", input, timeoutMs))
}

// GetBalance is eth_getBalance, "pending" read as "latest".
func (api *nitroAPI) GetBalance(ctx context.Context, address common.Address, block *rpc.BlockNumberOrHash) (json.RawMessage, error) {
	return api.call(ctx, "getBalance", address, latest(block))
}

// GetCode is eth_getCode, "pending" read as "latest".
func (api *nitroAPI) GetCode(ctx context.Context, address common.Address, block *rpc.BlockNumberOrHash) (json.RawMessage, error) {
	return api.call(ctx, "getCode", address, latest(block))
}

// GetStorageAt is eth_getStorageAt, "pending" read as "latest".
func (api *nitroAPI) GetStorageAt(ctx context.Context, address common.Address, key string, block *rpc.BlockNumberOrHash) (json.RawMessage, error) {
	return api.call(ctx, "getStorageAt", address, key, latest(block))
}

// GetProof is eth_getProof, "pending" read as "latest".
func (api *nitroAPI) GetProof(ctx context.Context, address common.Address, keys []string, block *rpc.BlockNumberOrHash) (json.RawMessage, error) {
	return api.call(ctx, "getProof", address, keys, latest(block))
}

// Call is eth_call, "pending" read as "latest".
func (api *nitroAPI) Call(ctx context.Context, args json.RawMessage, block *rpc.BlockNumberOrHash, overrides, blockOverrides *json.RawMessage) (json.RawMessage, error) {
	return api.call(ctx, "call", args, latest(block), overrides, blockOverrides)
}

// EstimateGas is eth_estimateGas, "pending" read as "latest", with the L1 part a Nitro node
// counts in it (ArbOS charges it from the transaction's gas before execution, so a gas limit
// without it would not cover the transaction): go-ethereum's execution gas plus the padded
// poster cost of the call in gas at the chain's price (l1FeeProcessor.estimateL1Gas). A
// transaction sent with the estimate as its limit then never shows gasUsed past it.
func (api *nitroAPI) EstimateGas(ctx context.Context, args json.RawMessage, block *rpc.BlockNumberOrHash, overrides, blockOverrides *json.RawMessage) (json.RawMessage, error) {
	raw, err := api.call(ctx, "estimateGas", args, latest(block), overrides, blockOverrides)
	if err != nil || api.fees == nil {
		return raw, err
	}
	var exec hexutil.Uint64
	if err := json.Unmarshal(raw, &exec); err != nil {
		return nil, err
	}
	var msg struct {
		To          *common.Address
		Data, Input *hexutil.Bytes
		Value       *hexutil.Big
	}
	if err := json.Unmarshal(args, &msg); err != nil {
		return nil, err
	}
	var data []byte
	switch {
	case msg.Input != nil:
		data = *msg.Input
	case msg.Data != nil:
		data = *msg.Data
	}
	value := new(big.Int)
	if msg.Value != nil {
		value = msg.Value.ToInt()
	}
	l1, err := api.fees.estimateL1Gas(api.chain.Config().ChainID, msg.To, data, value, uint64(exec), api.price)
	if err != nil {
		return nil, err
	}
	return json.Marshal(hexutil.Uint64(uint64(exec) + l1))
}

// CreateAccessList is eth_createAccessList, "pending" read as "latest".
func (api *nitroAPI) CreateAccessList(ctx context.Context, args json.RawMessage, block *rpc.BlockNumberOrHash, overrides *json.RawMessage) (json.RawMessage, error) {
	return api.call(ctx, "createAccessList", args, latest(block), overrides)
}

// SimulateV1 is eth_simulateV1, "pending" read as "latest".
func (api *nitroAPI) SimulateV1(ctx context.Context, opts json.RawMessage, block *rpc.BlockNumberOrHash) (json.RawMessage, error) {
	return api.call(ctx, "simulateV1", opts, latest(block))
}

// FeeHistory is eth_feeHistory, "pending" read as "latest".
func (api *nitroAPI) FeeHistory(ctx context.Context, count math.HexOrDecimal64, last rpc.BlockNumber, percentiles []float64) (json.RawMessage, error) {
	return api.call(ctx, "feeHistory", count, latestNumber(last), percentiles)
}

// GetBlockTransactionCountByNumber is eth_getBlockTransactionCountByNumber, "pending" as "latest".
func (api *nitroAPI) GetBlockTransactionCountByNumber(ctx context.Context, number rpc.BlockNumber) (json.RawMessage, error) {
	return api.call(ctx, "getBlockTransactionCountByNumber", latestNumber(number))
}

// GetTransactionByBlockNumberAndIndex is eth_getTransactionByBlockNumberAndIndex, "pending" as
// "latest".
func (api *nitroAPI) GetTransactionByBlockNumberAndIndex(ctx context.Context, number rpc.BlockNumber, index hexutil.Uint) (json.RawMessage, error) {
	return api.call(ctx, "getTransactionByBlockNumberAndIndex", latestNumber(number), index)
}

// GetRawTransactionByBlockNumberAndIndex is eth_getRawTransactionByBlockNumberAndIndex, "pending"
// as "latest".
func (api *nitroAPI) GetRawTransactionByBlockNumberAndIndex(ctx context.Context, number rpc.BlockNumber, index hexutil.Uint) (json.RawMessage, error) {
	return api.call(ctx, "getRawTransactionByBlockNumberAndIndex", latestNumber(number), index)
}

// GetLogs is eth_getLogs, a "pending" end of the range read as "latest".
func (api *nitroAPI) GetLogs(ctx context.Context, crit map[string]json.RawMessage) (json.RawMessage, error) {
	for _, k := range []string{"fromBlock", "toBlock"} {
		if string(crit[k]) == `"pending"` {
			crit[k] = json.RawMessage(`"latest"`)
		}
	}
	return api.call(ctx, "getLogs", crit)
}

// NewHeads is the newHeads subscription, each head with Nitro's block fields.
func (api *nitroAPI) NewHeads(ctx context.Context) (*rpc.Subscription, error) {
	notifier, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	heads := make(chan json.RawMessage, 64)
	sub, err := api.geth.EthSubscribe(context.WithoutCancel(ctx), heads, "newHeads")
	if err != nil {
		return nil, err
	}
	rpcSub := notifier.CreateSubscription()
	go func() {
		defer sub.Unsubscribe()
		for {
			select {
			case h := <-heads:
				if out, err := withHeaderInfo(h, nil); err == nil {
					_ = notifier.Notify(rpcSub.ID, out)
				}
			case <-rpcSub.Err():
				return
			case <-sub.Err():
				return
			}
		}
	}()
	return rpcSub, nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// withHeaderInfo adds Nitro's l1BlockNumber, sendCount and sendRoot to a block or header.
func withHeaderInfo(raw json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil || isNull(raw) {
		return raw, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var h struct {
		MixHash   common.Hash   `json:"mixHash"`
		ExtraData hexutil.Bytes `json:"extraData"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, err
	}
	info := nitroHeaderOf(h.MixHash, h.ExtraData)
	fields["l1BlockNumber"] = quantity(info.L1BlockNumber)
	fields["sendCount"] = quantity(info.SendCount)
	fields["sendRoot"], _ = json.Marshal(info.SendRoot)
	return json.Marshal(fields)
}

// withReceiptInfo adds Nitro's l1BlockNumber (its block's) and gasUsedForL1 to a receipt, and
// counts gasUsedForL1 in gasUsed and cumulativeGasUsed as Nitro does: go-ethereum's receipt has
// the execution gas only, the L1 part being charged by the chain's processor after it
// (l1fee.go). The receipts root and the header's gasUsed stay go-ethereum's, which the block
// hash covers.
func (api *nitroAPI) withReceiptInfo(raw json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil || isNull(raw) {
		return raw, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var r struct {
		BlockHash  common.Hash    `json:"blockHash"`
		Index      hexutil.Uint64 `json:"transactionIndex"`
		GasUsed    hexutil.Uint64 `json:"gasUsed"`
		Cumulative hexutil.Uint64 `json:"cumulativeGasUsed"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	header := api.chain.GetHeaderByHash(r.BlockHash)
	if header == nil {
		return nil, fmt.Errorf("receipt of an unknown block %s", r.BlockHash)
	}
	var l1, upTo uint64
	if api.fees != nil {
		var ok bool
		if l1, upTo, ok = api.fees.gasUsedForL1(r.BlockHash, uint64(r.Index)); !ok {
			return nil, fmt.Errorf("receipt %d of block %s: its L1 part is not known", r.Index, r.BlockHash)
		}
	}
	fields["l1BlockNumber"] = quantity(nitroHeader(header).L1BlockNumber)
	fields["gasUsedForL1"] = quantity(l1)
	fields["gasUsed"] = quantity(uint64(r.GasUsed) + l1)
	fields["cumulativeGasUsed"] = quantity(uint64(r.Cumulative) + upTo)
	return json.Marshal(fields)
}

func quantity(n uint64) json.RawMessage {
	out, _ := json.Marshal(hexutil.Uint64(n))
	return out
}
