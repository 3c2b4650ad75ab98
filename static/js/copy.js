// <input data-select-on-focus>: the whole value is selected when the field gets focus
// (a listener here, not an inline onfocus="": the Content-Security-Policy forbids those).
document.querySelectorAll("[data-select-on-focus]").forEach(function (input) {
  input.addEventListener("focus", function () { input.select(); });
});

// "Copy" buttons: <button data-copy="ID"> copies the value of the input with that id.
document.querySelectorAll("[data-copy]").forEach(function (button) {
  button.addEventListener("click", function () {
    var input = document.getElementById(button.dataset.copy);
    input.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard) {
      navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
});
