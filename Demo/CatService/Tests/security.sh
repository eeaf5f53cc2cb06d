#!/usr/bin/env bash
# security.sh: GET /api/report behind the document's security (a bearer token holding
# reports:read), over HTTP/1.1 and HTTP/2: 401 with WWW-Authenticate without a token or with an
# unknown one, 403 for a known token without the scope, 200 for --report-token; tokens from flags
# or the environment, never in a log line (debug level); without validation, refused to all.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPORTER=rt-7f3a9c2e VISITOR=vt-5b8d1e4f
start_server --log-level debug --access-log --report-token "$REPORTER" --visitor-token "$VISITOR"
for http in --http1.1 --http2-prior-knowledge; do
    echo "GET /api/report over $http"
    request "$http" "$BASE/api/report"
    check_eq "no token: 401 with WWW-Authenticate: Bearer" "401 Bearer" "$STATUS $(header WWW-Authenticate)"
    check_eq "... as problem details naming the scheme" "no credentials for shelterToken" \
        "$(problem_detail "$BODY")"
    request "$http" -H "Authorization: Bearer not-$REPORTER" "$BASE/api/report"
    check_eq "an unknown token: 401" "401 credentials refused for shelterToken" \
        "$STATUS $(problem_detail "$BODY")"
    request "$http" -H "Authorization: Bearer $VISITOR" "$BASE/api/report"
    check_eq "a visitor's token, without reports:read: 403" "403 not allowed: shelterToken needs reports:read" \
        "$STATUS $(problem_detail "$BODY")"
    request "$http" -H "Authorization: Bearer $REPORTER" "$BASE/api/report"
    before=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["adoptions"])' "$BODY" 2>/dev/null || echo "?")
    check_eq "the reporter's token: 200 application/json" "200 application/json; charset=utf-8" "$STATUS $(header Content-Type)"
    request "$http" -X POST -H 'Content-Type: application/json' -d '{"name": "Report"}' "$BASE/api/adopt"
    request "$http" -H "Authorization: Bearer $REPORTER" "$BASE/api/report"
    check_eq "... counting the adoption made since" "$((before + 1))" \
        "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["adoptions"])' "$BODY" 2>/dev/null || echo "?")"
done
check_eq "neither token in any log line at debug level (with the access log)" 0 "$(grep -c -e "$REPORTER" -e "$VISITOR" "$SERVER_ERR" || true)"
check_match "... while the refusals are logged, by operation" 'operation=getShelterReport status=401' "$(grep -m1 'getShelterReport' "$SERVER_ERR" || true)"
stop_server

echo "Tokens from the environment"
CAT_SERVICE_REPORT_TOKENS="other,$REPORTER" start_server
request -H "Authorization: Bearer $REPORTER" "$BASE/api/report"
check_eq "CAT_SERVICE_REPORT_TOKENS: 200" 200 "$STATUS"
stop_server

echo "--no-validation: the report's security cannot be checked, so nobody reads it"
start_server --no-validation --report-token "$REPORTER"
request -H "Authorization: Bearer $REPORTER" "$BASE/api/report"
check_eq "even the reporter's token: 401" 401 "$STATUS"
