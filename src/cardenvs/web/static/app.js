// The game page: post moves and steps to the JSON API, then reload the server-rendered page.
(function () {
  const game = document.getElementById("game");
  if (!game) return;
  const session = game.dataset.session;
  // every move, next and back names the step it answers: the server refuses a repeated one (a double click)
  const step = Number(game.dataset.step);
  const autoKey = "cardenvs-auto-" + session;
  const errorBox = document.getElementById("error");

  async function post(kind, body) {
    const response = await fetch(`/api/game/${session}/${kind}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({ error: response.statusText }));
      errorBox.textContent = data.error;
      sessionStorage.removeItem(autoKey);
      return false;
    }
    location.reload();
    return true;
  }

  function on(id, handler) {
    const element = document.getElementById(id);
    if (element) element.addEventListener("click", handler);
  }

  document.querySelectorAll("button.move").forEach((button) =>
    button.addEventListener("click", () => post("move", { step, action: Number(button.dataset.action) })));

  const selected = [];
  const playSelected = document.getElementById("play-selected");
  document.querySelectorAll(".hand.selectable .card-wrap").forEach((card) =>
    card.addEventListener("click", () => {
      card.classList.toggle("selected");
      const i = selected.indexOf(card);
      if (i >= 0) selected.splice(i, 1); else selected.push(card);
      if (playSelected) playSelected.disabled = selected.length === 0;
    }));
  on("play-selected", () => post("move", { step, move: selected.map((c) => c.dataset.token).join(game.dataset.join) }));
  on("send-typed", () => post("move", { step, move: document.getElementById("typed").value }));
  const typed = document.getElementById("typed");
  if (typed) typed.addEventListener("keydown", (e) => { if (e.key === "Enter") post("move", { step, move: typed.value }); });

  on("next", () => post("next", { step }));
  on("back", () => { sessionStorage.removeItem(autoKey); post("back", { step }); });
  on("start", () => { sessionStorage.removeItem(autoKey); post("goto", { step: 0 }); });
  on("end", () => post("goto", { step: Number(game.dataset.steps) }));
  on("auto", () => {
    if (sessionStorage.getItem(autoKey)) sessionStorage.removeItem(autoKey);
    else { sessionStorage.setItem(autoKey, "1"); post("next", { step }); }
  });
  const viewer = document.getElementById("viewer");
  if (viewer) viewer.addEventListener("change", () =>
    post("view", { viewer: viewer.value === "" ? null : Number(viewer.value) }));

  const auto = document.getElementById("auto");
  if (sessionStorage.getItem(autoKey)) {
    if (auto) auto.textContent = "stop autoplay";
    if (game.dataset.over === "true") sessionStorage.removeItem(autoKey);
    else setTimeout(() => { if (sessionStorage.getItem(autoKey)) post("next", { step }); }, 600);
  }
})();
