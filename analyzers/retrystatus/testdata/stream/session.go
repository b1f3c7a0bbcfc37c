package stream

import (
	"context"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
)

// watchHealth retries opening a server stream, whose request goes out
// with the open: a status on Recv after the first answer reaches Serving,
// which nothing retries.
func watchHealth(ctx context.Context, hc healthpb.HealthClient) (healthpb.Health_WatchClient, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		st, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: "llm"}) // want `retry loop at stream/session.go:16 retries opening the stream \(hc.Watch\) but never reads it: .* come from st.Recv\(\) in the caller, after the return at stream/session.go:19`
		if err == nil {
			return st, nil
		}
		if permanent(err) {
			return nil, err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

func Serving(ctx context.Context, hc healthpb.HealthClient) (bool, error) {
	st, err := watchHealth(ctx, hc)
	if err != nil {
		return false, err
	}
	resp, err := st.Recv()
	if err != nil {
		return false, err
	}
	return resp.GetStatus() == healthpb.HealthCheckResponse_SERVING, nil
}

// Quiet: a bidirectional stream is a session. Its open carries no
// request; the requests go out on Send later, and this session's own
// loop reopens it when a Recv fails, so the retry covers the connection
// only, as it should.
type session struct {
	rc   reflectpb.ServerReflectionClient
	errc chan error
}

func (s *session) open(ctx context.Context) (reflectpb.ServerReflection_ServerReflectionInfoClient, error) {
	wait := 10 * time.Millisecond
	for {
		st, err := s.rc.ServerReflectionInfo(ctx)
		if err == nil {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

func (s *session) read(st reflectpb.ServerReflection_ServerReflectionInfoClient) {
	for {
		if _, err := st.Recv(); err != nil {
			s.errc <- err
			return
		}
	}
}

func (s *session) run(ctx context.Context) error {
	for {
		st, err := s.open(ctx)
		if err != nil {
			return err
		}
		go s.read(st)
		if err := st.Send(&reflectpb.ServerReflectionRequest{}); err != nil {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.errc: // the session broke: open it again
		}
	}
}
