package retrymodel

import "testing"

func TestLoopbackURL(t *testing.T) {
	for u, want := range map[string]bool{
		"http://localhost:8080/ready":          true,
		"http://127.0.0.1/":                    true,
		"http://[::1]:9000/x":                  true,
		"localhost:18080":                      true,
		"http://api.localhost/":                true,
		"https://status.example.com/localhost": false,
		"https://user@example.com/":            false,
		"/healthz":                             false,
		"http://" + UnknownPart + "/v1":        false,
		"http://localhost" + UnknownPart:       false,
		"http://[::1":                          false,
	} {
		if got := LoopbackURL(u); got != want {
			t.Errorf("LoopbackURL(%q) = %v, want %v", u, got, want)
		}
	}
}
