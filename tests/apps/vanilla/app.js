// A todo list in plain DOM: the list is rendered with innerHTML and kept in localStorage.
const STORAGE_KEY = "todos-vanilla";

const newTodo = document.querySelector(".new-todo");
const main = document.querySelector(".main");
const list = document.querySelector(".todo-list");
const footer = document.querySelector(".footer");
const count = document.querySelector(".todo-count");
const clearCompleted = document.querySelector(".clear-completed");
const toggleAll = document.querySelector(".toggle-all");

let todos = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]");

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function currentFilter() {
  return location.hash.replace(/^#\//, "") || "all";
}

function shown(todo, filter) {
  return filter === "all" || (filter === "completed") === todo.completed;
}

function render() {
  const filter = currentFilter();
  list.innerHTML = todos.map((todo) => `
    <li data-id="${todo.id}" class="${todo.completed ? "completed" : ""}"
      ${shown(todo, filter) ? "" : "hidden"}>
      <div class="view">
        <input class="toggle" type="checkbox" ${todo.completed ? "checked" : ""}>
        <label>${escapeHtml(todo.title)}</label>
        <button class="destroy" title="Delete"></button>
      </div>
    </li>`).join("");
  const left = todos.filter((todo) => !todo.completed).length;
  count.innerHTML = `<strong>${left}</strong> ${left === 1 ? "item" : "items"} left`;
  clearCompleted.hidden = todos.every((todo) => !todo.completed);
  main.style.display = footer.style.display = todos.length ? "" : "none";
  toggleAll.checked = todos.length > 0 && left === 0;
  for (const link of document.querySelectorAll(".filters a")) {
    link.classList.toggle(
      "selected",
      link.getAttribute("href") === `#/${filter === "all" ? "" : filter}`,
    );
  }
  localStorage.setItem(STORAGE_KEY, JSON.stringify(todos));
}

function idOf(element) {
  return element.closest("li").dataset.id;
}

newTodo.addEventListener("keydown", (event) => {
  if (event.key !== "Enter") return;
  const title = newTodo.value.trim();
  if (!title) return;
  todos.push({ id: crypto.randomUUID(), title, completed: false });
  newTodo.value = "";
  render();
});

list.addEventListener("change", (event) => {
  if (!event.target.matches(".toggle")) return;
  const id = idOf(event.target);
  todos = todos.map((todo) => todo.id === id ? { ...todo, completed: event.target.checked } : todo);
  render();
});

list.addEventListener("click", (event) => {
  if (!event.target.matches(".destroy")) return;
  const id = idOf(event.target);
  todos = todos.filter((todo) => todo.id !== id);
  render();
});

toggleAll.addEventListener("change", () => {
  todos = todos.map((todo) => ({ ...todo, completed: toggleAll.checked }));
  render();
});

clearCompleted.addEventListener("click", () => {
  todos = todos.filter((todo) => !todo.completed);
  render();
});

addEventListener("hashchange", render);
render();
