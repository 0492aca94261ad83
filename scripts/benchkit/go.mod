module github.com/pricerig/pricerig/scripts/benchkit

go 1.26.0

require (
	github.com/alpacahq/alpaca-trade-api-go/v3 v3.9.1
	github.com/pricerig/pricerig v0.0.0
)

require (
	cloud.google.com/go v0.118.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-resty/resty/v2 v2.17.2 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/shopspring/decimal v1.6.0 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

replace github.com/pricerig/pricerig => ../..
