package sources

import (
	"net/http"
	"time"
)

// ServerDate is what a provider's clock said in one response: its Date header, which RFC 9110
// §6.6.1 defines as the origin server's time when it generated the response, to the second,
// with this machine's clock (Deps.Now) read as the request left and as the response's headers
// arrived. A host that checks its own clock against its providers' (pricerig doctor) asks a
// source for it through an interface of its own: every adapter's Base answers LastDate.
type ServerDate struct {
	Date     time.Time // the header: the provider's clock, truncated to the second
	Sent     time.Time // our clock as the request left
	Received time.Time // our clock as the response's headers arrived
}

// Skew bounds how far the provider's clock is ahead of ours (a negative skew: behind it). The
// header names the second the provider's clock was in at some instant of the request's flight, so
// at that instant the provider read [Date, Date+1s) while ours read [Sent, Received]: the skew is
// at least Date − Received and less than Date + 1s − Sent.
func (d ServerDate) Skew() (low, high time.Duration) {
	return d.Date.Sub(d.Received), d.Date.Add(time.Second).Sub(d.Sent)
}

// noteDate keeps the Date header of a response, read between sent and received on our clock.
// A response without one (or with one that does not parse) leaves the last one kept.
func (c *Client) noteDate(h http.Header, sent, received time.Time) {
	d, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return
	}
	c.date.Store(&ServerDate{Date: d.UTC(), Sent: sent, Received: received})
}

// LastDate is the Date header of the last response the client got, and when it asked and heard;
// false when no response carried one.
func (c *Client) LastDate() (ServerDate, bool) {
	d := c.date.Load()
	if d == nil {
		return ServerDate{}, false
	}
	return *d, true
}

// LastDate is the Date header of the last response the source got (Client.LastDate).
func (b *Base) LastDate() (ServerDate, bool) { return b.client.LastDate() }
