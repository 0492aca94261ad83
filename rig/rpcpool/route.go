package rpcpool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// The pool's client speaks JSON-RPC over HTTP to the pool itself (an http.RoundTripper), so every
// call go-ethereum's client makes, typed, raw or batched, is routed the same way:
//
//   - a read goes to the first endpoint of ranked(); one that fails to answer within Attempt (a
//     transport error, a timeout, an HTTP error status) is taken out of rotation and the read is
//     tried on the next, until one answers or the caller's context ends. A JSON-RPC error is the
//     node's answer (a revert, a bad parameter) and is returned as it is.
//   - a receipt that the first endpoint does not have yet is asked of the others in rotation: a
//     transaction sent to all may be mined on one before another has its block.
//   - eth_sendRawTransaction goes to every endpoint in rotation at once (to all when none is):
//     one acceptance is enough, and "already known", or "nonce too low" from a node that holds
//     the transaction, counts as one. Nonces stay the caller's (rig/txm).

// request is one JSON-RPC request as the client sends it.
type request struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

// response is one JSON-RPC response.
type response struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type transport struct{ p *Pool }

func (p *Pool) httpClient() *http.Client { return &http.Client{Transport: transport{p}} }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var reqs []request
	batch := len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '['
	if batch {
		err = json.Unmarshal(body, &reqs)
	} else {
		reqs = make([]request, 1)
		err = json.Unmarshal(body, &reqs[0])
	}
	if err != nil {
		return nil, fmt.Errorf("rpcpool: a request it cannot read: %w", err)
	}
	var resps []response
	switch {
	case !batch && reqs[0].Method == "eth_sendRawTransaction":
		r, err := t.p.sendAll(req.Context(), reqs[0])
		if err != nil {
			return nil, err
		}
		resps = []response{r}
	default:
		if resps, err = t.p.read(req.Context(), reqs); err != nil {
			return nil, err
		}
	}
	var out []byte
	if batch {
		out, err = json.Marshal(resps)
	} else {
		out, err = json.Marshal(resps[0])
	}
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(out)),
		ContentLength: int64(len(out)), Request: req}, nil
}

// read sends reqs (one request or a batch) to the endpoints in ranked order until one answers.
func (p *Pool) read(ctx context.Context, reqs []request) ([]response, error) {
	var last error
	eps := p.ranked()
	for i, e := range eps {
		if ctx.Err() != nil {
			break
		}
		resps, err := p.call(ctx, e, reqs)
		if err != nil {
			last = err
			continue
		}
		if len(reqs) == 1 && reqs[0].Method == "eth_getTransactionReceipt" && isNull(resps[0]) {
			resps = p.receiptElsewhere(ctx, eps[i+1:], reqs, resps)
		}
		return resps, nil
	}
	if last == nil {
		last = ctx.Err()
	}
	return nil, fmt.Errorf("rpcpool: no endpoint answered %s: %w", reqs[0].Method, last)
}

// receiptElsewhere asks the other endpoints in rotation for a receipt the first had not.
func (p *Pool) receiptElsewhere(ctx context.Context, eps []*endpoint, reqs []request, none []response) []response {
	for _, e := range eps {
		if !p.isUp(e) {
			continue
		}
		if resps, err := p.call(ctx, e, reqs); err == nil && !isNull(resps[0]) {
			return resps
		}
	}
	return none
}

func isNull(r response) bool {
	return r.Error == nil && (len(r.Result) == 0 || string(r.Result) == "null")
}

func (p *Pool) isUp(e *endpoint) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return e.up
}

// call sends reqs to e within Attempt. An error is e's failure (it leaves rotation); a
// JSON-RPC error is an answer, in the responses.
func (p *Pool) call(ctx context.Context, e *endpoint, reqs []request) ([]response, error) {
	client := p.clientOf(e)
	if client == nil {
		return nil, fmt.Errorf("%s: not dialed", e.name)
	}
	actx, cancel := context.WithTimeout(ctx, p.cfg.Attempt)
	defer cancel()
	start := time.Now()
	elems := make([]rpc.BatchElem, len(reqs))
	results := make([]json.RawMessage, len(reqs))
	for i, r := range reqs {
		args := make([]any, len(r.Params))
		for j, a := range r.Params {
			args[j] = a
		}
		elems[i] = rpc.BatchElem{Method: r.Method, Args: args, Result: &results[i]}
	}
	var err error
	if len(elems) == 1 {
		elems[0].Error = client.CallContext(actx, elems[0].Result, elems[0].Method, elems[0].Args...)
		if !isAnswer(elems[0].Error) {
			err, elems[0].Error = elems[0].Error, nil
		}
	} else {
		err = client.BatchCallContext(actx, elems)
	}
	if err != nil {
		if ctx.Err() == nil { // the caller gave up: no fault of e's
			p.failed(e, fmt.Errorf("%s: %w", reqs[0].Method, err))
		}
		return nil, fmt.Errorf("%s: %w", e.name, err)
	}
	p.mu.Lock()
	e.latency = time.Since(start)
	p.mu.Unlock()
	out := make([]response, len(reqs))
	for i, r := range reqs {
		out[i] = response{Version: "2.0", ID: r.ID, Result: results[i]}
		if elems[i].Error != nil {
			out[i].Result = nil
			out[i].Error = asWireError(elems[i].Error)
		}
		if out[i].Error == nil && len(out[i].Result) == 0 {
			out[i].Result = json.RawMessage("null")
		}
	}
	return out, nil
}

// isAnswer says err is the node's JSON-RPC answer rather than a failure to get one.
func isAnswer(err error) bool {
	var re rpc.Error
	return err == nil || errors.As(err, &re)
}

func asWireError(err error) *wireError {
	w := &wireError{Code: -32603, Message: err.Error()}
	var re rpc.Error
	if errors.As(err, &re) {
		w.Code = re.ErrorCode()
	}
	var de rpc.DataError
	if errors.As(err, &de) {
		w.Data = de.ErrorData()
	}
	return w
}

// sendAll sends a signed transaction to every endpoint in rotation (every endpoint when none
// is) and answers with the first acceptance; without one, with the first node's refusal, or
// an error when no node answered.
func (p *Pool) sendAll(ctx context.Context, req request) (response, error) {
	var targets []*endpoint
	for _, e := range p.ranked() {
		if p.isUp(e) {
			targets = append(targets, e)
		}
	}
	if len(targets) == 0 {
		targets = p.ranked()
	}
	hash, herr := txHash(req)
	type outcome struct {
		e    *endpoint
		resp response
		err  error
	}
	done := make(chan outcome, len(targets))
	for _, e := range targets {
		go func() {
			r, err := p.call(ctx, e, []request{req})
			if err != nil {
				done <- outcome{e: e, err: err}
				return
			}
			done <- outcome{e: e, resp: r[0]}
		}()
	}
	var refusal *response
	var last error
	for range targets {
		o := <-done
		switch {
		case o.err != nil:
			last = o.err
		case o.resp.Error == nil:
			return o.resp, nil
		case herr == nil && p.holds(ctx, o.e, o.resp.Error.Message, hash):
			ok := o.resp
			ok.Error, ok.Result = nil, json.RawMessage(`"`+hash.Hex()+`"`)
			return ok, nil
		case refusal == nil:
			refusal = &o.resp
		}
	}
	if refusal != nil {
		return *refusal, nil
	}
	return response{}, fmt.Errorf("rpcpool: no endpoint took the transaction: %w", last)
}

// holds says a refusal of a transaction means the node has it: "already known", or "nonce too
// low" from a node that holds a transaction of that hash (it was mined, or is pending there).
func (p *Pool) holds(ctx context.Context, e *endpoint, msg string, hash common.Hash) bool {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "already known"), strings.Contains(m, "known transaction"):
		return true
	case strings.Contains(m, "nonce too low"):
		param, _ := json.Marshal(hash)
		r, err := p.call(ctx, e, []request{{ID: json.RawMessage("1"), Method: "eth_getTransactionByHash", Params: []json.RawMessage{param}}})
		return err == nil && !isNull(r[0])
	}
	return false
}

// txHash is the hash of the signed transaction eth_sendRawTransaction carries.
func txHash(req request) (common.Hash, error) {
	if len(req.Params) != 1 {
		return common.Hash{}, errors.New("eth_sendRawTransaction takes one parameter")
	}
	var raw hexutil.Bytes
	if err := json.Unmarshal(req.Params[0], &raw); err != nil {
		return common.Hash{}, err
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}
