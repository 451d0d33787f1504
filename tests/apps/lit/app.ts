/**
 * @module A todo list as one LitElement, `<todo-app>`. It renders into the light DOM, so the
 * page's stylesheet styles it; the filter lives in location.hash.
 */
import { html, LitElement, nothing } from "lit";
import { classMap } from "lit/directives/class-map.js";
import { repeat } from "lit/directives/repeat.js";

interface Todo {
  id: string;
  title: string;
  completed: boolean;
}

type Filter = "all" | "active" | "completed";

const FILTERS: [Filter, string, string][] = [
  ["all", "#/", "All"],
  ["active", "#/active", "Active"],
  ["completed", "#/completed", "Completed"],
];

function hashFilter(): Filter {
  const name = location.hash.replace(/^#\//, "");
  return name === "active" || name === "completed" ? name : "all";
}

class TodoApp extends LitElement {
  static override properties = { todos: { state: true }, filter: { state: true } };
  declare todos: Todo[];
  declare filter: Filter;
  #onHashChange = () => this.filter = hashFilter();

  constructor() {
    super();
    this.todos = [];
    this.filter = hashFilter();
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener("hashchange", this.#onHashChange);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener("hashchange", this.#onHashChange);
  }

  #onKeyDown(event: KeyboardEvent): void {
    const input = event.target as HTMLInputElement;
    if (event.key !== "Enter") return;
    const title = input.value.trim();
    if (!title) return;
    this.todos = [...this.todos, { id: crypto.randomUUID(), title, completed: false }];
    input.value = "";
  }

  #toggle(id: string): void {
    this.todos = this.todos.map((t) => t.id === id ? { ...t, completed: !t.completed } : t);
  }

  #destroy(id: string): void {
    this.todos = this.todos.filter((t) => t.id !== id);
  }

  #item(todo: Todo) {
    return html`
      <li class=${classMap({ completed: todo.completed })}>
        <div class="view">
          <input class="toggle" type="checkbox" .checked=${todo.completed}
            @change=${() => this.#toggle(todo.id)}>
          <label>${todo.title}</label>
          <button class="destroy" title="Delete" @click=${() => this.#destroy(todo.id)}></button>
        </div>
      </li>
    `;
  }

  #footer() {
    const left = this.todos.filter((t) => !t.completed).length;
    return html`<footer class="footer">
      <span class="todo-count"><strong>${left}</strong> ${left === 1 ? "item" : "items"} left</span>
      <ul class="filters">
        ${
      FILTERS.map(([name, href, label]) =>
        html`<li><a href=${href} class=${
          classMap({ selected: this.filter === name })
        }>${label}</a></li>`
      )
    }
      </ul>
      ${
      this.todos.some((t) => t.completed)
        ? html`<button class="clear-completed" @click=${() =>
          this.todos = this.todos.filter((t) => !t.completed)}>Clear completed</button>`
        : nothing
    }
    </footer>`;
  }

  protected override render() {
    const shown = this.todos.filter((t) =>
      this.filter === "all" || (this.filter === "completed") === t.completed
    );
    return html`<section class="todoapp">
      <header class="header">
        <h1>todos</h1>
        <input class="new-todo" placeholder="What needs to be done?" autofocus
          @keydown=${this.#onKeyDown}>
      </header>
      ${
      this.todos.length
        ? html`
          <section class="main">
            <ul class="todo-list">${repeat(shown, (t) => t.id, (t) => this.#item(t))}</ul>
          </section>
                    ${this.#footer()}
        `
        : nothing
    }
    </section>`;
  }
}

customElements.define("todo-app", TodoApp);
