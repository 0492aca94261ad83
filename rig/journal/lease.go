package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrFenced means a write that leads to a transaction was refused because this instance no
// longer holds the lease (another instance took over): nothing may be sent.
var ErrFenced = errors.New("fenced: this instance does not hold the lease")

// Lease is one look at the lease of a set of keys: who holds it, in which epoch, and for how
// long by the database's clock.
type Lease struct {
	Name   string
	Holder string
	Epoch  int64
	Held   bool          // the caller holds it (acquired or renewed)
	Age    time.Duration // since the holder last renewed it, by the database's clock
}

// Fence is the proof of leadership a write carries: the lease name, the holder and the epoch it
// was granted. A later epoch granted to anyone else makes every write with this fence fail.
type Fence struct {
	Name   string
	Holder string
	Epoch  int64
}

type fenceKey struct{}

// WithFence returns a context whose journal writes that lead to a transaction (RecordAnswer,
// CheckFence) are checked against f in the same database transaction.
func WithFence(ctx context.Context, f Fence) context.Context {
	return context.WithValue(ctx, fenceKey{}, f)
}

func fenceFrom(ctx context.Context) (Fence, bool) {
	f, ok := ctx.Value(fenceKey{}).(Fence)
	return f, ok
}

// Leaser is a journal several instances share, who take turns by a lease; *DBJournal on
// PostgreSQL is one.
type Leaser interface {
	// AcquireLease takes or renews the lease name for holder for ttl; Lease.Held says whether
	// the holder has it now.
	AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (Lease, error)
	// CheckFence fails with ErrFenced unless f is still the live lease.
	CheckFence(ctx context.Context, f Fence) error
	// ReleaseLease lets the lease f holds expire now, so a follower takes over at once.
	ReleaseLease(ctx context.Context, f Fence) error
}

var _ Leaser = (*DBJournal)(nil)

// AcquireLease takes or renews the lease name for holder for ttl. The holder of a live lease
// renews it in its epoch; anyone may take an expired lease, in the next epoch. Expiry is judged
// by the database's clock, so the machines' clocks need not agree. A SQLite journal has one
// user: the lease is always held, in epoch 1.
func (j *DBJournal) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (Lease, error) {
	if !j.postgres {
		return Lease{Name: name, Holder: holder, Epoch: 1, Held: true}, nil
	}
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return Lease{}, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, epoch, expires_at, renewed_at)
		VALUES ($1, '', 0, now(), now()) ON CONFLICT (name) DO NOTHING`, name); err != nil {
		return Lease{}, err
	}
	l := Lease{Name: name}
	var live bool
	var ageMs float64
	if err := tx.QueryRowContext(ctx, `SELECT holder, epoch, expires_at > now(), EXTRACT(EPOCH FROM (now() - renewed_at)) * 1000
		FROM leases WHERE name = $1 FOR UPDATE`, name).Scan(&l.Holder, &l.Epoch, &live, &ageMs); err != nil {
		return Lease{}, err
	}
	l.Age = time.Duration(ageMs) * time.Millisecond
	ms := ttl.Milliseconds()
	switch {
	case live && l.Holder == holder:
		_, err = tx.ExecContext(ctx, `UPDATE leases SET expires_at = now() + $2 * interval '1 millisecond', renewed_at = now()
			WHERE name = $1`, name, ms)
	case !live:
		l.Epoch++
		l.Holder = holder
		_, err = tx.ExecContext(ctx, `UPDATE leases SET holder = $2, epoch = $3, expires_at = now() + $4 * interval '1 millisecond',
			renewed_at = now() WHERE name = $1`, name, holder, l.Epoch, ms)
	default:
		return l, tx.Commit() // someone else holds it
	}
	if err != nil {
		return Lease{}, err
	}
	if err := tx.Commit(); err != nil {
		return Lease{}, err
	}
	l.Held, l.Age = true, 0
	return l, nil
}

// CheckFence fails with ErrFenced unless f is still the live lease. It is the last database
// look before a transaction is sent.
func (j *DBJournal) CheckFence(ctx context.Context, f Fence) error {
	if !j.postgres {
		return nil
	}
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := j.checkFenceTx(WithFence(ctx, f), tx); err != nil {
		return err
	}
	return tx.Commit()
}

// checkFenceTx checks the fence ctx carries inside tx. The lease row is share-locked until tx
// ends, so a takeover (which updates the row) waits for the write it guards to commit.
func (j *DBJournal) checkFenceTx(ctx context.Context, tx *sql.Tx) error {
	f, ok := fenceFrom(ctx)
	if !ok || !j.postgres {
		return nil
	}
	var holder string
	var epoch int64
	var live bool
	err := tx.QueryRowContext(ctx, `SELECT holder, epoch, expires_at > now() FROM leases WHERE name = $1 FOR SHARE`, f.Name).
		Scan(&holder, &epoch, &live)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: no lease %q", ErrFenced, f.Name)
	}
	if err != nil {
		return err
	}
	if holder != f.Holder || epoch != f.Epoch || !live {
		return fmt.Errorf("%w: lease %q is held by %s in epoch %d (we had epoch %d)", ErrFenced, f.Name, holder, epoch, f.Epoch)
	}
	return nil
}

// ReleaseLease lets the lease expire now when f still holds it, so a follower takes over at
// its next look instead of waiting out the TTL (a clean shutdown).
func (j *DBJournal) ReleaseLease(ctx context.Context, f Fence) error {
	if !j.postgres {
		return nil
	}
	_, err := j.db.ExecContext(ctx, `UPDATE leases SET expires_at = now() WHERE name = $1 AND holder = $2 AND epoch = $3`,
		f.Name, f.Holder, f.Epoch)
	return err
}
