package cases

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Sender hides the transport behind an interface: the retry model cannot
// see that Deliver's operation is remote; the census' call graph can.
type Sender interface {
	Send(ctx context.Context, msg string) error
}

type httpSender struct {
	c   *http.Client
	url string
}

func (s *httpSender) Send(ctx context.Context, msg string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(msg))
	if err != nil {
		return err
	}
	resp, err := s.c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// NewSender returns the HTTP sender.
func NewSender(url string) Sender { return &httpSender{c: http.DefaultClient, url: url} }

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
	Deliver(ctx, NewSender("http://example.com"), "hi")
}
