package quiet

import (
	"net/http"
	"testing"
	"time"
)

// A test helper waiting for a server to come up: tests are not the
// production path, and have no deadline to respect but the test's own.
func waitUp(t *testing.T, url string) {
	t.Helper()
	for i := 0; i < 50; i++ {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never came up", url)
}

func TestNothing(t *testing.T) {
	_ = waitUp
}
