module ${PROJECT}

go 1.26.6

require (
	github.com/pulumi-observability/pulumi-observability/sdk/go v0.5.0
	github.com/pulumi/pulumi/sdk/v3 v3.274.1
)
