package bounded

import (
	"context"
	"database/sql"
)

// Pools has no write verb in its method names; its implementation here
// writes, so a call through it is a write.
type Pools interface {
	AbortDrain(ctx context.Context, pool string) error
	Inspect(ctx context.Context, pool string) (int, error)
}

type sqlPools struct{ db *sql.DB }

func (p *sqlPools) AbortDrain(ctx context.Context, pool string) error { // want AbortDrain:"write with ctx param 0"
	_, err := p.db.ExecContext(ctx, "UPDATE pools SET draining = false WHERE name = $1", pool)
	return err
}

func (p *sqlPools) Inspect(ctx context.Context, pool string) (int, error) {
	var n int
	err := p.db.QueryRowContext(ctx, "SELECT n FROM pools WHERE name = $1", pool).Scan(&n)
	return n, err
}

type Updater struct{ pools Pools }

// The shape of zalando-incubator/cluster-lifecycle-manager's abort (fixed in d750f16).
func (u *Updater) Update(ctx context.Context, pool string, run func(context.Context) error) error { // want Update:"write with ctx param 0"
	err := run(ctx)
	if err != nil {
		if ctx.Err() == context.Canceled {
			u.pools.AbortDrain(ctx, pool) // want `write uses ctx after it expired \(checked at bounded/impl.go:34\): u.pools.AbortDrain fails at once \(it reaches sqlPools.AbortDrain, which writes through p.db.ExecContext at bounded/impl.go:18\)`
		}
		return err
	}
	return nil
}

// Quiet: the implementation only reads.
func (u *Updater) inspect(ctx context.Context, pool string) int {
	if ctx.Err() != nil {
		n, _ := u.pools.Inspect(ctx, pool)
		return n
	}
	return 0
}
