package a

func bad() {}

func f() {
	bad() // want `bad call`

	//retryvet:ignore retrystatus the classifier is generated and checked elsewhere
	bad()

	bad() //retryvet:ignore retrystatus reviewed: the code list comes from the provider's docs

	//retryvet:ignore retrystatus nothing here to silence // want `//retryvet:ignore retrystatus silences nothing here: remove it`
	_ = 1

	//retryvet:ignore retrystatus // want `malformed directive: //retryvet:ignore retrystatus needs a reason`
	bad() // want `bad call`

	//retryvet:ignore doubleretry,retrystatus both reviewed
	bad()
}

//retryvet:p99 40s
func withP99() {}

//retryvet:p99 fast
func badP99() {}

//retryvet:pipeline
func pipeline() {}
