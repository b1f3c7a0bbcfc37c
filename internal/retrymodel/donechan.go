package retrymodel

// A done channel cancels too: a <-chan struct{} the code was handed (a
// stopCh parameter, by the convention of client-go's wait package) is its
// caller's cancellation, as a ctx parameter is. A wait that does not
// select on it keeps a stopped caller waiting. A chan struct{} field
// closed by the value's Close or Stop is not taken: it is the value's
// lifetime, not the caller's call, and a retry that outlives it by one
// wait costs nothing (sarama's client.closer, judged so).

func chanSource(name string) CancelSource {
	return CancelSource{Name: name, Done: name, Chan: true}
}
