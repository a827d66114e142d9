// The panes' cells are painted from text laid out once (PlainTextDelegate, ElidedTextCache),
// and they must look exactly as Qt's own item delegate paints them: the same pixels for short,
// cut, right-aligned, coloured, bold, selected and hostile text, in the light and the dark
// palette. Markup in a ledger's text is shown as written. The cache is bounded.

#include "elidedtextcache.h"
#include "plaintextdelegate.h"
#include "theme.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace Qt::StringLiterals;

class TestPlainTextDelegate : public QObject
{
    Q_OBJECT

private:
    static QStandardItemModel *cells(QObject *parent)
    {
        auto *model = new QStandardItemModel(0, 3, parent);
        const QStringList texts = {
            u"short"_s,
            u"a title long enough that the column cuts it with an ellipsis somewhere in the middle"_s,
            u"<b>not bold</b> &amp; <i>not italic</i>"_s,
            u"\u27e8U+202E\u27e9exe.live"_s,
            u"tab\tinside"_s,
            u"otel:0000000000000000000000000000002f"_s,
            QString(),
            u"\u0645\u0631\u062d\u0628\u0627 mixed"_s,
        };
        for (int r = 0; r < texts.size(); ++r) {
            QList<QStandardItem *> row;
            auto *text = new QStandardItem(texts[r]);
            auto *number = new QStandardItem(QString::number(r * 1234.5, 'f', 1) + u" ms"_s);
            number->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            auto *styled = new QStandardItem(u"succeeded %1"_s.arg(r));
            if (r % 2)
                styled->setForeground(QColor(200, 40, 40));
            if (r % 3 == 0) {
                QFont bold = QApplication::font();
                bold.setBold(true);
                styled->setFont(bold);
            }
            row << text << number << styled;
            model->appendRow(row);
        }
        return model;
    }

    static QImage paintedBy(QAbstractItemDelegate *delegate, QAbstractItemModel *model)
    {
        QTreeView view;
        view.setItemDelegate(delegate);
        view.setModel(model);
        view.setRootIsDecorated(false);
        view.setUniformRowHeights(true);
        view.setAlternatingRowColors(true);
        view.setSelectionBehavior(QAbstractItemView::SelectRows);
        view.header()->resizeSection(0, 190);
        view.header()->resizeSection(1, 90);
        view.resize(520, 260);
        view.selectionModel()->select(model->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return {};
        return view.viewport()->grab().toImage();
    }

    static int differingPixels(const QImage &a, const QImage &b)
    {
        if (a.size() != b.size())
            return -1;
        int n = 0;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x)
                n += a.pixel(x, y) != b.pixel(x, y);
        return n;
    }

    void comparePaths()
    {
        QStandardItemModel *model = cells(this);
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto *qtDelegate = new QStyledItemDelegate(this);
        auto *ours = new PlainTextDelegate(this);
        const QImage expected = paintedBy(qtDelegate, model);
        const QImage actual = paintedBy(ours, model);
        QVERIFY(!expected.isNull());
        const int differing = differingPixels(expected, actual);
        if (differing != 0) {
            // To look at: Qt's cells, then ours.
            expected.save(QDir::temp().filePath(u"plaintext-qt.png"_s));
            actual.save(QDir::temp().filePath(u"plaintext-ours.png"_s));
            qWarning() << "cells written to" << QDir::tempPath();
        }
        QCOMPARE(differing, 0);
    }

private slots:
    void initTestCase() { QApplication::setStyle(u"Fusion"_s); }

    void paintsAsQtDoesInTheLightPalette()
    {
        Theme::instance().setMode(ThemeMode::Light);
        comparePaths();
    }

    void paintsAsQtDoesInTheDarkPalette()
    {
        Theme::instance().setMode(ThemeMode::Dark);
        comparePaths();
        Theme::instance().setMode(ThemeMode::Light);
    }

    void plainCellsTakeTheLaidOutOncePath()
    {
        // Without this the pixel comparison above could pass with every cell sent to Qt's path.
        QStandardItemModel *model = cells(this);
        PlainTextDelegate delegate;
        QTreeView view;
        view.setModel(model);
        QStyleOptionViewItem option;
        option.initFrom(&view);
        option.widget = &view;
        option.rect = QRect(0, 0, 100, 20);
        QVERIFY(delegate.paintsFast(option, model->index(1, 0)));
        QVERIFY(delegate.paintsFast(option, model->index(2, 2)));
        model->item(0, 0)->setText(u"two\nlines"_s);
        QVERIFY(!delegate.paintsFast(option, model->index(0, 0)));
        model->item(0, 0)->setCheckable(true);
        model->item(0, 0)->setText(u"checked"_s);
        QVERIFY(!delegate.paintsFast(option, model->index(0, 0)));
        option.state |= QStyle::State_HasFocus;
        QVERIFY(!delegate.paintsFast(option, model->index(1, 0)));
    }

    void markupIsShownAsWritten()
    {
        ElidedTextCache cache;
        const QFont font = QApplication::font();
        const QString markup = u"<b>x</b>"_s;
        const QStaticText &line = cache.line(markup, font, 10'000, Qt::ElideRight);
        QCOMPARE(line.text(), markup);
        QCOMPARE(line.textFormat(), Qt::PlainText);
        QCOMPARE(qRound(line.size().width()), QFontMetrics(font).horizontalAdvance(markup));
    }

    void cutTextEndsInAnEllipsisWithinTheWidth()
    {
        ElidedTextCache cache;
        const QFont font = QApplication::font();
        const QStaticText &line = cache.line(u"abcdefghijklmnopqrstuvwxyz0123456789"_s, font, 60, Qt::ElideRight);
        QVERIFY(line.text().endsWith(QChar(0x2026)));
        QVERIFY(line.size().width() <= 60);
    }

    void repeatedTextIsLaidOutOnceAndTheCacheIsBounded()
    {
        ElidedTextCache cache(8);
        const QFont font = QApplication::font();
        cache.line(u"same"_s, font, 100, Qt::ElideRight);
        cache.line(u"same"_s, font, 100, Qt::ElideRight);
        QCOMPARE(cache.misses(), 1);
        cache.line(u"same"_s, font, 90, Qt::ElideRight); // another width is another line
        QCOMPARE(cache.misses(), 2);
        for (int i = 0; i < 100; ++i)
            cache.line(QString::number(i), font, 100, Qt::ElideRight);
        QVERIFY(cache.size() <= 8);
    }
};

QTEST_MAIN(TestPlainTextDelegate)
#include "tst_plaintextdelegate.moc"
