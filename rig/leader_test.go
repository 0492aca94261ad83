package rig

import (
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/txm"
)

// /readyz's reason, from the runner's last failed look at the chain, quotes the node's error
// without the RPC URL's key (registered by the command): /readyz has no redacting writer in front.
func TestReadinessReasonIsRedacted(t *testing.T) {
	const key = "1e2d3c4b5a69788796a5b4c3d2e1f0f0"
	rpc := "http://127.0.0.1:1/v3/" + key
	redact.Register(redact.URLSecrets(rpc)...)
	failure := txm.ClassifyRPCError(&url.Error{Op: "Post", URL: rpc, Err: syscall.ECONNREFUSED})
	r := &Runner{lastStepAt: time.Now(), lastStepErr: failure}
	if _, why := r.Ready(); strings.Contains(why, key) || !strings.Contains(why, "127.0.0.1:1/v3/"+redact.Mark) {
		t.Errorf("/readyz says %q", why)
	}
}
