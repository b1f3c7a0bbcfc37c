package cases

import (
	"context"
	"time"

	"example.com/t/transport"
)

// Sender hides the transport behind an interface implemented in another
// package: the retry model cannot see that Deliver's operation is remote;
// the census' call graph can.
type Sender interface {
	Send(ctx context.Context, msg string) error
}

// Deliver retries through the interface, 3s apart.
func Deliver(ctx context.Context, s Sender, msg string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = s.Send(ctx, msg); err == nil {
			return nil
		}
		time.Sleep(3 * time.Second)
	}
	return err
}

// Notify gives the delivery 2s: less than the first wait.
func Notify() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	Deliver(ctx, transport.New("http://example.com"), "hi")
}
