package txm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"syscall"

	"github.com/ethereum/go-ethereum/rpc"
)

// Kinds of RPC failure the sender tells apart.
var (
	ErrNonceTooLow       = errors.New("nonce too low")
	ErrNonceTooHigh      = errors.New("nonce too high")
	ErrAlreadyKnown      = errors.New("transaction already known")
	ErrUnderpriced       = errors.New("transaction underpriced")
	ErrInsufficientFunds = errors.New("insufficient funds")
	ErrRPCUnavailable    = errors.New("rpc unavailable")
	ErrReverted          = errors.New("transaction reverted")
	ErrWouldRevert       = errors.New("transaction would revert: not sent")
	ErrNotMined          = errors.New("transaction not mined in time")
)

// ClassifyRPCError maps a node's error to one of the kinds above (wrapping the original), or
// returns it unchanged when it is none of them: a failure to reach the node is told by its type
// (unreachableNode), a node's refusal of a transaction by its JSON-RPC error's words
// (nodeRejection, the one place the rig reads them).
func ClassifyRPCError(err error) error {
	if err == nil {
		return nil
	}
	if unreachableNode(err) {
		return fmt.Errorf("%w: %w", ErrRPCUnavailable, err)
	}
	if kind := nodeRejection(err); kind != nil {
		return fmt.Errorf("%w: %w", kind, err)
	}
	return err
}

// unreachableNode reports whether err is a failure to reach the node or to hear its whole answer,
// by the error's type: a network error (net.Error: a refused or reset connection, a dial or DNS
// failure, a timeout, and the *url.Error net/http wraps them in), a connection cut mid-answer
// (io.EOF, io.ErrUnexpectedEOF, ECONNRESET, EPIPE), a call that ran out of time
// (context.DeadlineExceeded), or a gateway in front of the node saying it is down (HTTP 502, 503,
// 504 as go-ethereum's rpc.HTTPError). context.Canceled is not: the caller stopped, the node did
// not fail.
func unreachableNode(err error) bool {
	for _, target := range []error{context.DeadlineExceeded, io.EOF, io.ErrUnexpectedEOF,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE} {
		if errors.Is(err, target) {
			return true
		}
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var httpErr rpc.HTTPError
	if errors.As(err, &httpErr) {
		switch httpErr.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
	}
	return false
}

// nodeRejectionWords are the words nodes refuse a transaction with (geth, Erigon, Nethermind,
// Besu, Anvil, as Chainlink's txmgr tables them).
var nodeRejectionWords = []struct {
	pattern *regexp.Regexp
	kind    error
}{
	{regexp.MustCompile(`(?i)nonce too low|nonce has already been used|OldNonce`), ErrNonceTooLow},
	{regexp.MustCompile(`(?i)nonce too high`), ErrNonceTooHigh},
	{regexp.MustCompile(`(?i)already known|known transaction|already imported|AlreadyKnown`), ErrAlreadyKnown},
	{regexp.MustCompile(`(?i)underpriced|fee too low|max fee per gas less than block base fee|feecap below`), ErrUnderpriced},
	{regexp.MustCompile(`(?i)insufficient funds`), ErrInsufficientFunds},
}

// nodeRejection is the kind of a node's refusal of a transaction (nonce too low or too high,
// already known, underpriced, insufficient funds), nil when err is not one. Nodes send these as a
// JSON-RPC error with the generic code -32000 (or another client's generic code) and only words
// in its message: over the wire there is no typed form to errors.Is, so the words are the node's
// only signal and this table is the one place the rig reads an error's text. It reads only a
// JSON-RPC error (rpc.Error: what the node answered), never a local or transport error's text,
// and pinned by TestNodeRejectionsAreReadFromTheNodesWords.
func nodeRejection(err error) error {
	var rpcErr rpc.Error
	if !errors.As(err, &rpcErr) {
		return nil
	}
	msg := rpcErr.Error()
	for _, row := range nodeRejectionWords {
		if row.pattern.MatchString(msg) {
			return row.kind
		}
	}
	return nil
}
