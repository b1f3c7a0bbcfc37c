// Package outcome holds a protocol's result: an error type of its own,
// nil or an acknowledgement when the peer took the message.
package outcome

import "errors"

// Result is an error by another name: nil, Ack, or why the send failed.
type Result error

// Ack is the peer's acknowledgement.
var Ack Result = errors.New("ack")

// IsAck holds for a result the peer acknowledged, nil among them.
func IsAck(r Result) bool {
	if r == nil {
		return true
	}
	return errors.Is(r, Ack)
}

// Failed holds for a result that is not an acknowledgement.
func Failed(r Result) bool {
	if r == nil {
		return false
	}
	return !errors.Is(r, Ack)
}

// Status is a failed delivery with the peer's HTTP status.
type Status struct{ Code int }

func (s *Status) Error() string { return "status" }
