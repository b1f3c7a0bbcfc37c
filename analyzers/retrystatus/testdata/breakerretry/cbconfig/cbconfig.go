// Package cbconfig returns the Settings a project's breakers are built
// with, in a package of their own.
package cbconfig

import (
	"context"
	"errors"
	"time"

	"github.com/sony/gobreaker/v2"
)

func excluded(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Socket opens after 3 failures in a row.
func Socket(name string) gobreaker.Settings {
	return gobreaker.Settings{
		Name:        name,
		Timeout:     time.Minute,
		IsExcluded:  excluded,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
	}
}

// Patient opens after 20 failures in a row.
func Patient() gobreaker.Settings {
	s := gobreaker.Settings{Name: "patient", IsExcluded: excluded}
	s.ReadyToTrip = func(c gobreaker.Counts) bool { return c.ConsecutiveFailures > 19 }
	return s
}

// Ratio opens on a failure ratio, a rule not read against one request.
func Ratio() gobreaker.Settings {
	return gobreaker.Settings{
		IsExcluded: excluded,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.Requests >= 10 && c.TotalFailures*2 > c.Requests
		},
	}
}
