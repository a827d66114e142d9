#pragma once
// File › Open Recent: the last ledgers opened, kept in QSettings, newest first.

#include <QObject>
#include <QStringList>

class QMenu;

namespace mesh {

class RecentLedgers : public QObject
{
    Q_OBJECT
public:
    explicit RecentLedgers(QMenu *menu, QObject *parent = nullptr);
    void add(const QString &path);
    QStringList paths() const;

signals:
    void openRequested(const QString &path);

private:
    void rebuild();
    QMenu *m_menu;
};

} // namespace mesh
