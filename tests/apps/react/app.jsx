/** @jsxRuntime automatic @jsxImportSource react */
// A todo list in React: function components, a controlled input, the filter in location.hash.
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const FILTERS = [["all", "#/", "All"], ["active", "#/active", "Active"], [
  "completed",
  "#/completed",
  "Completed",
]];

function useHashFilter() {
  const read = () => location.hash.replace(/^#\//, "") || "all";
  const [filter, setFilter] = useState(read);
  useEffect(() => {
    const onHashChange = () => setFilter(read());
    addEventListener("hashchange", onHashChange);
    return () => removeEventListener("hashchange", onHashChange);
  }, []);
  return filter;
}

function TodoItem({ todo, onToggle, onDestroy }) {
  return (
    <li className={todo.completed ? "completed" : ""}>
      <div className="view">
        <input className="toggle" type="checkbox" checked={todo.completed} onChange={onToggle} />
        <label>{todo.title}</label>
        <button type="button" className="destroy" title="Delete" onClick={onDestroy} />
      </div>
    </li>
  );
}

function Footer({ left, filter, hasCompleted, onClearCompleted }) {
  return (
    <footer className="footer">
      <span className="todo-count">
        <strong>{left}</strong> {left === 1 ? "item" : "items"} left
      </span>
      <ul className="filters">
        {FILTERS.map(([name, href, label]) => (
          <li key={name}>
            <a href={href} className={filter === name ? "selected" : ""}>{label}</a>
          </li>
        ))}
      </ul>
      {hasCompleted && (
        <button type="button" className="clear-completed" onClick={onClearCompleted}>
          Clear completed
        </button>
      )}
    </footer>
  );
}

function App() {
  const [todos, setTodos] = useState([]);
  const [draft, setDraft] = useState("");
  const filter = useHashFilter();

  function onKeyDown(event) {
    if (event.key !== "Enter") return;
    const title = draft.trim();
    if (!title) return;
    setTodos([...todos, { id: crypto.randomUUID(), title, completed: false }]);
    setDraft("");
  }

  const toggle = (id) =>
    setTodos(todos.map((t) => t.id === id ? { ...t, completed: !t.completed } : t));
  const destroy = (id) => setTodos(todos.filter((t) => t.id !== id));
  const shown = todos.filter((t) => filter === "all" || (filter === "completed") === t.completed);
  const left = todos.filter((t) => !t.completed).length;

  return (
    <section className="todoapp">
      <header className="header">
        <h1>todos</h1>
        <input
          className="new-todo"
          placeholder="What needs to be done?"
          autoFocus
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
      </header>
      {todos.length > 0 && (
        <>
          <section className="main">
            <ul className="todo-list">
              {shown.map((todo) => (
                <TodoItem
                  key={todo.id}
                  todo={todo}
                  onToggle={() => toggle(todo.id)}
                  onDestroy={() => destroy(todo.id)}
                />
              ))}
            </ul>
          </section>
          <Footer
            left={left}
            filter={filter}
            hasCompleted={todos.some((t) => t.completed)}
            onClearCompleted={() => setTodos(todos.filter((t) => !t.completed))}
          />
        </>
      )}
    </section>
  );
}

createRoot(document.getElementById("root")).render(<App />);
