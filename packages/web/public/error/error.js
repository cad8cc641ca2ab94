// Shows ?status=..&message=.. of /error/error.html (SPEC §8). Text only: the query is never parsed as HTML.
(function () {
  var params = new URLSearchParams(window.location.search);
  var message = params.get('message');
  var status = params.get('status');
  if (message) document.getElementById('message').textContent = message.slice(0, 500);
  if (status !== null) {
    var el = document.getElementById('status');
    el.textContent = status === '0' ? 'The server could not be reached (network error).' : 'HTTP status ' + status.slice(0, 10);
    el.hidden = false;
  }
})();
