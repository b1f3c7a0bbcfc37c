package a

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCodes(t *testing.T) {
	for _, tc := range []struct{ code int }{{502}, {503}, {504}} {
		rec := httptest.NewRecorder()
		rec.WriteHeader(tc.code)
		if rec.Code != 502 && rec.Code != 503 && rec.Code != 504 {
			t.Fatalf("code %d", rec.Code)
		}
		if !isRetryable(502) || isRetryable(http.StatusOK) {
			t.Fatal("classifier")
		}
	}
}
