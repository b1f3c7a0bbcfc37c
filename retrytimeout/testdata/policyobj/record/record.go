// Package record holds a delivery record that another package fills.
package record

// Delivery is what one attempt left behind: its package declares the
// fields, the sender fills them.
type Delivery struct {
	Attempt    int
	StatusCode int
	Ready      bool
}
